import ArgumentParser
import Foundation
import FoyerAPI
import FoyerClient

struct EmailLinkCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "email-link",
        abstract: """
            Passwordless email links: send one, then complete it with the token from the email, or with its code \
            on any device.
            """,
        subcommands: [Send.self, Complete.self, Code.self]
    )

    enum Purpose: String, ExpressibleByArgument, CaseIterable {
        case signIn = "sign-in"
        case link

        var purpose: EmailLinkPurpose { self == .link ? .link : .signIn }
    }

    struct Send: JSONCommand {
        static let configuration = CommandConfiguration(
            commandName: "send",
            abstract: "Send an email link; its verifier is kept in the session file until `complete`.",
            discussion: """
                --purpose link attaches the address to the session's user (a guest signing up); sign-in signs in \
                to the account with that address, creating one if none has it. Default: link when the session \
                file holds a session, sign-in otherwise. The answer is the same whether an account has the address.
                Output: {"sent": true, "email", "purpose"}.
                """
        )

        @OptionGroup var global: GlobalOptions

        @Option(help: "The address to send the link to.")
        var email: String

        @Option(help: "sign-in or link (default: link with a session, sign-in without).")
        var purpose: Purpose?

        func execute() async throws(FoyerError) -> JSONValue {
            guard global.sessionPath != nil else {
                throw .invalidInput("email-link send needs --session: the verifier must be kept for `complete`")
            }
            return try await CommandContext.run(global) { (context) async throws(FoyerError) in
                let purpose = self.purpose?.purpose ?? (context.file.stored.session == nil ? .signIn : .link)
                if purpose == .link { _ = try context.requireSession() }
                let verifier = try await context.client.sendEmailLink(to: email, purpose: purpose)
                context.file.update { stored in
                    stored.pendingEmailLink = StoredSession.PendingEmailLink(
                        email: email,
                        purpose: purpose,
                        verifier: verifier,
                        sentAt: Date()
                    )
                    stored.gateway = context.client.configuration.address
                }
                return .object([
                    ("sent", .bool(true)),
                    ("email", .string(email)),
                    ("purpose", .string(purpose == .link ? "link" : "sign-in")),
                ])
            }
        }
    }

    struct Complete: JSONCommand {
        static let configuration = CommandConfiguration(
            commandName: "complete",
            abstract: "Complete the email link sent last with this session file, with the token from the email.",
            discussion: """
                A sign-in link signs in (the session file then holds that account's session); a link link \
                attaches the address to the session's user, with --on-conflict deciding if the address belongs \
                to another account.
                Output: {"outcome", "uid", "isAnonymous", "sessionId", "mergeReport"?, "email"}.
                """
        )

        @OptionGroup var global: GlobalOptions

        @Option(parsing: .unconditional, help: "The token from the email (or the whole link).")
        var token: String

        @OptionGroup var conflict: ConflictOptions

        func execute() async throws(FoyerError) -> JSONValue {
            try await CommandContext.run(global) { (context) async throws(FoyerError) in
                guard let pending = context.file.stored.pendingEmailLink else {
                    throw .invalidInput(
                        "no email link is pending in this session file; run `foyer email-link send` first"
                    )
                }
                let result = try await context.client.completeEmailLink(
                    token: token,
                    verifier: try pending.emailLinkVerifier(),
                    purpose: pending.linkPurpose,
                    onConflict: conflict.onConflict.choice,
                    mergePolicy: conflict.mergePolicy.policy
                )
                context.file.update { $0.pendingEmailLink = nil }
                return Render.link(result).merging([("email", .string(pending.email))])
            }
        }
    }
}
