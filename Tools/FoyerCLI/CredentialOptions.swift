import ArgumentParser
import FoyerAPI
import FoyerClient

/// A credential given on the command line: an email and password, or an Apple / Google ID token.
struct CredentialOptions: ParsableArguments {
    @Option(help: "The email address.")
    var email: String?

    @Option(
        parsing: .unconditional,
        help: "The password (visible to other local users in the process list; prefer --password-file)."
    )
    var password: String?

    @Option(help: ArgumentHelp("A file whose first line is the password.", valueName: "path"))
    var passwordFile: String?

    @Option(help: ArgumentHelp("An ID token's provider: apple or google (with --id-token).", valueName: "provider"))
    var provider: ProviderOption?

    @Option(parsing: .unconditional, help: ArgumentHelp("A Sign in with Apple / Google ID token.", valueName: "jwt"))
    var idToken: String?

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp("The raw nonce whose SHA-256 (hex) is the ID token's nonce claim.", valueName: "nonce")
    )
    var rawNonce: String?

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "Sign in with Apple's authorization code, revoked at Apple when the account is deleted (with --id-token).",
            valueName: "code"
        )
    )
    var authorizationCode: String?

    /// The credential, or `invalid-input` saying what is missing.
    func credential() throws(FoyerError) -> Credential {
        if let idToken {
            guard let provider else { throw .invalidInput("--id-token needs --provider apple|google") }
            guard email == nil, password == nil, passwordFile == nil else {
                throw .invalidInput("give either --email/--password or --provider/--id-token, not both")
            }
            return .idToken(
                provider: provider.identityProvider,
                idToken: idToken,
                rawNonce: rawNonce,
                authorizationCode: authorizationCode
            )
        }
        guard let email else { throw .invalidInput("--email is required (or --provider with --id-token)") }
        return .password(email: email, password: try resolvedPassword())
    }

    private func resolvedPassword() throws(FoyerError) -> String {
        if let password { return password }
        guard let passwordFile else { throw .invalidInput("--password (or --password-file) is required") }
        guard let text = try? String(contentsOfFile: passwordFile, encoding: .utf8) else {
            throw .invalidInput("cannot read the password file \(passwordFile)")
        }
        return String(text.split(separator: "\n", maxSplits: 1, omittingEmptySubsequences: false).first ?? "")
    }
}

enum ProviderOption: String, ExpressibleByArgument, CaseIterable {
    case apple, google

    var identityProvider: IdentityProvider { self == .apple ? .apple : .google }
}

/// What `link` does when the credential belongs to another account.
enum ConflictOption: String, ExpressibleByArgument, CaseIterable {
    case merge, discard, fail

    var choice: ConflictChoice {
        switch self {
        case .merge: .merge
        case .discard: .discard
        case .fail: .fail
        }
    }
}

/// How a merge resolves keys both hold.
enum MergePolicyOption: String, ExpressibleByArgument, CaseIterable {
    case keepAccount = "keep-account"
    case keepGuest = "keep-guest"
    case keepNewest = "keep-newest"
    case keepBoth = "keep-both"

    var policy: MergePolicy {
        switch self {
        case .keepAccount: .keepAccount
        case .keepGuest: .keepGuest
        case .keepNewest: .keepNewest
        case .keepBoth: .keepBoth
        }
    }
}

/// `--on-conflict` and `--merge-policy`.
struct ConflictOptions: ParsableArguments {
    @Option(
        help:
            "If the credential belongs to another account: merge this guest into it, discard this guest, or fail with a ticket for `foyer resolve`."
    )
    var onConflict: ConflictOption = .fail

    @Option(help: "On merge, which document wins when both hold a key.")
    var mergePolicy: MergePolicyOption = .keepAccount
}
