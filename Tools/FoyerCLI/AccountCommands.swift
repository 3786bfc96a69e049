import ArgumentParser
import Foundation
import FoyerAPI
import FoyerClient

struct MeCommand: JSONCommand {
    static let configuration = CommandConfiguration(
        commandName: "me",
        abstract: "Who the session's user is, how they can sign in, and their quota.",
        discussion: """
            Output: {"uid", "isAnonymous", "state", "createdAt", "lastActivityAt", "email", "emailVerified", \
            "hasPassword", "providers", "plan", "counters": [{"counter", "limit", "used", "remaining"}], "features"}.
            """
    )

    @OptionGroup var global: GlobalOptions

    func execute() async throws(FoyerError) -> JSONValue {
        try await CommandContext.run(global) { (context) async throws(FoyerError) in
            _ = try context.requireSession()
            let me = try await context.client.me()
            return .object(Render.user(me.user) + Render.usage(me.usage))
        }
    }
}

struct FeatureCommand: JSONCommand {
    static let configuration = CommandConfiguration(
        commandName: "feature",
        abstract: "Whether the session's plan has a feature on.",
        discussion: #"Output: {"feature", "plan", "enabled"}. A name no plan defines fails with unknown-feature."#
    )

    @Argument(help: "The feature's name (as in the plans file).") var feature: String
    @OptionGroup var global: GlobalOptions

    func execute() async throws(FoyerError) -> JSONValue {
        try await CommandContext.run(global) { (context) async throws(FoyerError) in
            _ = try context.requireSession()
            let answer = try await context.client.checkFeature(feature)
            return .object([
                ("feature", .string(feature)), ("plan", .string(answer.plan)), ("enabled", .bool(answer.enabled)),
            ])
        }
    }
}

struct LinkCommand: JSONCommand {
    static let configuration = CommandConfiguration(
        commandName: "link",
        abstract: "Link an email and password (or an ID token) to the session's user.",
        discussion: """
            A guest becomes a permanent account with the same uid and data. If the credential belongs to another \
            account: --on-conflict merge moves the guest's documents into it (--merge-policy decides colliding \
            keys) and deletes the guest; discard deletes the guest and its documents; fail (the default) changes \
            nothing and the error carries a ticket for `foyer resolve`. After merge or discard the session file \
            holds the other account's session.
            Output: {"outcome": "linked"|"merged"|"discarded", "uid", "isAnonymous", "sessionId", "mergeReport"?}.
            """
    )

    @OptionGroup var global: GlobalOptions
    @OptionGroup var credential: CredentialOptions
    @OptionGroup var conflict: ConflictOptions

    func execute() async throws(FoyerError) -> JSONValue {
        let credential = try self.credential.credential()
        return try await CommandContext.run(global) { (context) async throws(FoyerError) in
            _ = try context.requireSession()
            return Render.link(
                try await context.client.link(
                    credential,
                    onConflict: conflict.onConflict.choice,
                    mergePolicy: conflict.mergePolicy.policy
                )
            )
        }
    }
}

enum ResolveChoice: String, EnumerableFlag {
    case merge, discard

    static func help(for value: ResolveChoice) -> ArgumentHelp? {
        switch value {
        case .merge: "Move the guest's documents into the other account, then delete the guest."
        case .discard: "Delete the guest and its documents, and sign in to the other account."
        }
    }
}

struct ResolveCommand: JSONCommand {
    static let configuration = CommandConfiguration(
        commandName: "resolve",
        abstract:
            "Decide a conflict reported by `link --on-conflict fail`, with its ticket (the credential is not needed again).",
        discussion: #"Output: {"outcome": "merged"|"discarded", "uid", "isAnonymous", "sessionId", "mergeReport"?}."#
    )

    @OptionGroup var global: GlobalOptions

    @Option(parsing: .unconditional, help: "The ticket from the conflict error (it may begin with a dash).")
    var ticket: String

    @Flag(exclusivity: .exclusive)
    var choice: ResolveChoice

    @Option(help: "On merge, which document wins when both hold a key.")
    var mergePolicy: MergePolicyOption = .keepAccount

    func execute() async throws(FoyerError) -> JSONValue {
        try await CommandContext.run(global) { (context) async throws(FoyerError) in
            _ = try context.requireSession()
            return Render.link(
                try await context.client.resolveConflict(
                    ticket: ticket,
                    choice: choice == .merge ? .merge : .discard,
                    mergePolicy: mergePolicy.policy
                )
            )
        }
    }
}

struct JWKSCommand: JSONCommand {
    static let configuration = CommandConfiguration(
        commandName: "jwks",
        abstract: "Identity's public signing keys as a JWK Set, for an app backend that verifies access tokens itself.",
        discussion: #"Output: the JWK Set itself, {"keys": [...]}."#
    )

    @OptionGroup var global: GlobalOptions

    func execute() async throws(FoyerError) -> JSONValue {
        try await CommandContext.run(global) { (context) async throws(FoyerError) in
            let json = try await context.client.jwks()
            guard (try? JSONSerialization.jsonObject(with: Data(json))) is [String: Any] else {
                throw FoyerError(status: .internal, message: "the gateway's JWKS is not a JSON object")
            }
            return .raw(String(decoding: json, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
        }
    }
}
