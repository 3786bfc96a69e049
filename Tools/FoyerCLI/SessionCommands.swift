import ArgumentParser
import FoyerAPI
import FoyerClient

struct GuestCommand: JSONCommand {
    static let configuration = CommandConfiguration(
        commandName: "guest",
        abstract: "Sign in as a new guest and keep its session in the session file.",
        discussion: """
            Refuses (invalid-input) when the session file already holds a session, since replacing it would \
            abandon that user; pass --replace to start a new guest anyway. Where the deployment checks sign-ups, \
            pass --proof-of-work (solves the gateway's challenge) or --sign-up-token (a captcha token).
            Output: {"uid", "isAnonymous": true, "sessionId", "accessTokenExpiresAt", "refreshTokenExpiresAt"}.
            """
    )

    @OptionGroup var global: GlobalOptions

    @Flag(help: "Start a new guest even if the session file holds a session.")
    var replace = false
    @Flag(help: "Solve the gateway's proof-of-work sign-up challenge (deployments with --sign-up-check proof-of-work).")
    var proofOfWork = false
    @Option(help: "A captcha token for the sign-up check (deployments with --sign-up-check siteverify).")
    var signUpToken: String?

    func execute() async throws(FoyerError) -> JSONValue {
        let check: GuestSignUpCheck
        switch (proofOfWork, signUpToken) {
        case (true, nil): check = .proofOfWork
        case (false, let token?): check = .siteverify(token: token)
        case (false, nil): check = .none
        case (true, _?): throw .invalidInput("pass --proof-of-work or --sign-up-token, not both")
        }
        return try await CommandContext.run(global) { (context) async throws(FoyerError) in
            if let existing = context.file.stored.session, !replace {
                throw .invalidInput(
                    "the session file already holds a session (uid \(existing.uid)); pass --replace to start a new guest"
                )
            }
            return Render.session(try await context.client.signInAsGuest(signUpCheck: check))
        }
    }
}

struct SignUpCommand: JSONCommand {
    static let configuration = CommandConfiguration(
        commandName: "sign-up",
        abstract: "Link an email and password (or an ID token) to the session's guest, making it a permanent account.",
        discussion: """
            Signs in as a new guest first if the session file holds no session. The uid and every document stay. \
            If the credential belongs to another account, --on-conflict decides (default fail: the error carries \
            a ticket for `foyer resolve`).
            Output: {"outcome": "linked"|"merged"|"discarded", "uid", "isAnonymous", "sessionId", \
            "mergeReport"?, "guestCreated"}.
            """
    )

    @OptionGroup var global: GlobalOptions
    @OptionGroup var credential: CredentialOptions
    @OptionGroup var conflict: ConflictOptions

    func execute() async throws(FoyerError) -> JSONValue {
        let credential = try self.credential.credential()
        return try await CommandContext.run(global) { (context) async throws(FoyerError) in
            var created = false
            if context.file.stored.session == nil {
                try await context.client.signInAsGuest()
                created = true
            }
            let result = try await context.client.link(
                credential,
                onConflict: conflict.onConflict.choice,
                mergePolicy: conflict.mergePolicy.policy
            )
            return Render.link(result).merging([("guestCreated", .bool(created))])
        }
    }
}

struct SignInCommand: JSONCommand {
    static let configuration = CommandConfiguration(
        commandName: "sign-in",
        abstract: "Sign in to an existing account with an email and password (or an Apple / Google ID token).",
        discussion: """
            Replaces the session in the session file. A guest session replaced this way is not deleted (the \
            inactivity clean-up will); use `foyer link` to bring a guest's data along.
            Output: the session, with "replacedUid" when another user's session was replaced.
            """
    )

    @OptionGroup var global: GlobalOptions
    @OptionGroup var credential: CredentialOptions

    func execute() async throws(FoyerError) -> JSONValue {
        let credential = try self.credential.credential()
        return try await CommandContext.run(global) { (context) async throws(FoyerError) in
            let previous = context.file.stored.session?.uid
            let session = try await context.client.signIn(with: credential)
            var extra: [(String, JSONValue)] = []
            if let previous, previous != session.uid { extra.append(("replacedUid", .string(previous))) }
            return Render.session(session).merging(extra)
        }
    }
}

struct RefreshCommand: JSONCommand {
    static let configuration = CommandConfiguration(
        commandName: "refresh",
        abstract: "Rotate the session's refresh token into a new token pair now (commands also do it when needed).",
        discussion: "Output: the new session."
    )

    @OptionGroup var global: GlobalOptions

    func execute() async throws(FoyerError) -> JSONValue {
        try await CommandContext.run(global) { (context) async throws(FoyerError) in
            _ = try context.requireSession()
            return Render.session(try await context.client.refreshSession())
        }
    }
}

struct TokenCommand: JSONCommand {
    static let configuration = CommandConfiguration(
        commandName: "token",
        abstract:
            "Print an access token with at least a minute left (refreshing first if needed), for calling an app's own backend.",
        discussion: #"Output: {"uid", "accessToken", "expiresAt"}."#
    )

    @OptionGroup var global: GlobalOptions

    func execute() async throws(FoyerError) -> JSONValue {
        try await CommandContext.run(global) { (context) async throws(FoyerError) in
            _ = try context.requireSession()
            let token = try await context.client.accessToken()
            let session = await context.client.session
            return .object([
                ("uid", .optional(session?.uid)),
                ("accessToken", .string(token)),
                ("expiresAt", session.map { .time($0.accessTokenExpiresAt) } ?? .null),
            ])
        }
    }
}

struct SignOutCommand: JSONCommand {
    static let configuration = CommandConfiguration(
        commandName: "sign-out",
        abstract:
            "End the session. A guest's sign-out deletes the guest and all its data; a member's revokes the session.",
        discussion: #"Removes the session from the session file. Output: {"uid", "accountDeleted"}."#
    )

    @OptionGroup var global: GlobalOptions

    func execute() async throws(FoyerError) -> JSONValue {
        try await CommandContext.run(global) { (context) async throws(FoyerError) in
            let session = try context.requireSession()
            let deleted = try await context.client.signOut()
            return .object([("uid", .string(session.uid)), ("accountDeleted", .bool(deleted))])
        }
    }
}

struct DeleteAccountCommand: JSONCommand {
    static let configuration = CommandConfiguration(
        commandName: "delete-account",
        abstract: "Delete the account and everything it owns, in every service.",
        discussion: #"Removes the session from the session file. Output: {"uid", "documentsDeleted"}."#
    )

    @OptionGroup var global: GlobalOptions

    func execute() async throws(FoyerError) -> JSONValue {
        try await CommandContext.run(global) { (context) async throws(FoyerError) in
            let session = try context.requireSession()
            let documents = try await context.client.deleteAccount()
            return .object([("uid", .string(session.uid)), ("documentsDeleted", .uint(documents))])
        }
    }
}
