import ArgumentParser
import Foundation
import FoyerAPI
import FoyerClient

/// A password given on the command line, or the first line of a file.
struct PasswordArgument {
    var text: String?
    var file: String?
    var name: String

    /// The password, nil when neither was given.
    func optional() throws(FoyerError) -> String? {
        if let text { return text }
        guard let file else { return nil }
        guard let contents = try? String(contentsOfFile: file, encoding: .utf8) else {
            throw .invalidInput("cannot read the password file \(file)")
        }
        return String(contents.split(separator: "\n", maxSplits: 1, omittingEmptySubsequences: false).first ?? "")
    }

    func required() throws(FoyerError) -> String {
        guard let password = try optional() else { throw .invalidInput("--\(name) (or --\(name)-file) is required") }
        return password
    }
}

struct ResetPasswordCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "reset-password",
        abstract: "Password reset by email: ask for a reset link, then set a new password with its token.",
        subcommands: [Send.self, Complete.self]
    )

    struct Send: JSONCommand {
        static let configuration = CommandConfiguration(
            commandName: "send",
            abstract: "Ask for a password-reset email.",
            discussion: """
                The answer is the same whether an account has the address: an account's address gets a single-use \
                link, any other address a notice that no account uses it. The link works only with the verifier \
                printed here: give it to `reset-password complete --verifier`.
                Output: {"sent": true, "email", "verifier"}.
                """
        )

        @OptionGroup var global: GlobalOptions

        @Option(help: "The account's email address.")
        var email: String

        func execute() async throws(FoyerError) -> JSONValue {
            try await CommandContext.run(global) { (context) async throws(FoyerError) in
                let verifier = try await context.client.startPasswordReset(email: email)
                return .object([("sent", .bool(true)), ("email", .string(email)), ("verifier", .string(verifier.text))])
            }
        }
    }

    struct Complete: JSONCommand {
        static let configuration = CommandConfiguration(
            commandName: "complete",
            abstract: "Set a new password with the token from a reset email, and sign in.",
            discussion: """
                Every session of the account is signed out and access tokens issued before stop working; the \
                session file then holds the new session.
                Output: the session.
                """
        )

        @OptionGroup var global: GlobalOptions

        @Option(parsing: .unconditional, help: "The token from the email (or the whole link).")
        var token: String

        @Option(parsing: .unconditional, help: "The verifier `reset-password send` printed.")
        var verifier: String

        @Option(parsing: .unconditional, help: "The new password (prefer --new-password-file).")
        var newPassword: String?

        @Option(help: ArgumentHelp("A file whose first line is the new password.", valueName: "path"))
        var newPasswordFile: String?

        func execute() async throws(FoyerError) -> JSONValue {
            let password = try PasswordArgument(text: newPassword, file: newPasswordFile, name: "new-password")
                .required()
            let verifier = try EmailLinkVerifier(text: verifier)
            return try await CommandContext.run(global) { (context) async throws(FoyerError) in
                Render.session(
                    try await context.client.completePasswordReset(
                        token: token,
                        verifier: verifier,
                        newPassword: password
                    )
                )
            }
        }
    }
}

struct ChangePasswordCommand: JSONCommand {
    static let configuration = CommandConfiguration(
        commandName: "change-password",
        abstract: "Change (or set) the session's member's password; every other session is signed out.",
        discussion: """
            Needs the current password, or a session that signed in within the last few minutes (identity's \
            recent-sign-in window, 5 minutes by default; recent-sign-in-required otherwise). The session file then \
            holds the fresh session the change answers.
            Output: the session.
            """
    )

    @OptionGroup var global: GlobalOptions

    @Option(parsing: .unconditional, help: "The current password (prefer --current-password-file).")
    var currentPassword: String?

    @Option(help: ArgumentHelp("A file whose first line is the current password.", valueName: "path"))
    var currentPasswordFile: String?

    @Option(parsing: .unconditional, help: "The new password (prefer --new-password-file).")
    var newPassword: String?

    @Option(help: ArgumentHelp("A file whose first line is the new password.", valueName: "path"))
    var newPasswordFile: String?

    func execute() async throws(FoyerError) -> JSONValue {
        let current = try PasswordArgument(text: currentPassword, file: currentPasswordFile, name: "current-password")
            .optional()
        let new = try PasswordArgument(text: newPassword, file: newPasswordFile, name: "new-password").required()
        return try await CommandContext.run(global) { (context) async throws(FoyerError) in
            _ = try context.requireSession()
            return Render.session(try await context.client.changePassword(currentPassword: current, newPassword: new))
        }
    }
}

struct SignOutEverywhereCommand: JSONCommand {
    static let configuration = CommandConfiguration(
        commandName: "sign-out-everywhere",
        abstract: "Sign the session's member out of every session, on every device (members only).",
        discussion: #"Removes the session from the session file. Output: {"uid", "signedOut": true}."#
    )

    @OptionGroup var global: GlobalOptions

    func execute() async throws(FoyerError) -> JSONValue {
        try await CommandContext.run(global) { (context) async throws(FoyerError) in
            let session = try context.requireSession()
            try await context.client.signOutEverywhere()
            return .object([("uid", .string(session.uid)), ("signedOut", .bool(true))])
        }
    }
}

struct UnlinkCommand: JSONCommand {
    static let configuration = CommandConfiguration(
        commandName: "unlink",
        abstract: "Remove a credential (email, apple or google) from the session's member; never the last one.",
        discussion: """
            Needs a session that signed in within the last few minutes (recent-sign-in-required otherwise); the \
            last credential is refused with last-credential. email removes the address with its password.
            Output: {"uid", "unlinked"}.
            """
    )

    @OptionGroup var global: GlobalOptions

    @Argument(help: "email, apple or google.")
    var credential: CredentialKindOption

    func execute() async throws(FoyerError) -> JSONValue {
        try await CommandContext.run(global) { (context) async throws(FoyerError) in
            let session = try context.requireSession()
            try await context.client.unlinkCredential(credential.kind)
            return .object([("uid", .string(session.uid)), ("unlinked", .string(credential.rawValue))])
        }
    }
}

enum CredentialKindOption: String, ExpressibleByArgument, CaseIterable {
    case email, apple, google

    var kind: CredentialKind {
        switch self {
        case .email: .email
        case .apple: .apple
        case .google: .google
        }
    }
}

struct ChangeEmailCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "change-email",
        abstract: "Change the session's member's email address: send a link to the new one, then complete it.",
        subcommands: [Send.self, Complete.self]
    )

    struct Send: JSONCommand {
        static let configuration = CommandConfiguration(
            commandName: "send",
            abstract: "Send a confirmation link to the new address.",
            discussion: """
                Needs the current password, or a session that signed in within the last few minutes \
                (recent-sign-in-required otherwise). The answer is the same whether or not another account has \
                the address; completing the change then fails with email-already-in-use. The link works only with \
                the verifier printed here, and only while this session is signed in.
                Output: {"sent": true, "newEmail", "verifier"}.
                """
        )

        @OptionGroup var global: GlobalOptions

        @Option(help: "The new address.")
        var newEmail: String

        @Option(parsing: .unconditional, help: "The current password (prefer --current-password-file).")
        var currentPassword: String?

        @Option(help: ArgumentHelp("A file whose first line is the current password.", valueName: "path"))
        var currentPasswordFile: String?

        func execute() async throws(FoyerError) -> JSONValue {
            let current = try PasswordArgument(
                text: currentPassword,
                file: currentPasswordFile,
                name: "current-password"
            ).optional()
            return try await CommandContext.run(global) { (context) async throws(FoyerError) in
                _ = try context.requireSession()
                let verifier = try await context.client.startEmailChange(to: newEmail, currentPassword: current)
                return .object([
                    ("sent", .bool(true)), ("newEmail", .string(newEmail)), ("verifier", .string(verifier.text)),
                ])
            }
        }
    }

    struct Complete: JSONCommand {
        static let configuration = CommandConfiguration(
            commandName: "complete",
            abstract: "Move the account's email to the new address with the token from the link sent there.",
            discussion: """
                The password stays; the old address is told that the address changed. Needs no session.
                Output: {"changed": true}.
                """
        )

        @OptionGroup var global: GlobalOptions

        @Option(parsing: .unconditional, help: "The token from the email (or the whole link).")
        var token: String

        @Option(parsing: .unconditional, help: "The verifier `change-email send` printed.")
        var verifier: String

        func execute() async throws(FoyerError) -> JSONValue {
            let verifier = try EmailLinkVerifier(text: verifier)
            return try await CommandContext.run(global) { (context) async throws(FoyerError) in
                try await context.client.completeEmailChange(token: token, verifier: verifier)
                return .object([("changed", .bool(true))])
            }
        }
    }
}
