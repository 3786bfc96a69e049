import ArgumentParser
import FoyerAPI
import FoyerClient

extension EmailLinkCommand {
    struct Code: JSONCommand {
        static let configuration = CommandConfiguration(
            commandName: "code",
            abstract: "Complete a sign-in or link email with its six-digit code, on any device.",
            discussion: """
                Unlike `complete`, needs no verifier: the email may have been asked for elsewhere. --purpose \
                sign-in signs in (the session file then holds that account's session); link attaches the address \
                to the session's user, who must be the one that asked for the email, with --on-conflict deciding \
                if the address belongs to another account. Default: link when the session file holds a session, \
                sign-in otherwise. Redeeming the code spends the email's link too.
                Output: {"outcome", "uid", "isAnonymous", "sessionId", "mergeReport"?, "email"}.
                """
        )

        @OptionGroup var global: GlobalOptions

        @Option(help: "The address the email was sent to.")
        var email: String

        @Option(parsing: .unconditional, help: "The six-digit code from the email.")
        var code: String

        @Option(help: "sign-in or link (default: link with a session, sign-in without).")
        var purpose: Purpose?

        @OptionGroup var conflict: ConflictOptions

        func execute() async throws(FoyerError) -> JSONValue {
            try await CommandContext.run(global) { (context) async throws(FoyerError) in
                let purpose = self.purpose?.purpose ?? (context.file.stored.session == nil ? .signIn : .link)
                if purpose == .link { _ = try context.requireSession() }
                let result = try await context.client.completeEmailCode(
                    code,
                    email: email,
                    purpose: purpose,
                    onConflict: conflict.onConflict.choice,
                    mergePolicy: conflict.mergePolicy.policy
                )
                return Render.link(result).merging([("email", .string(email))])
            }
        }
    }
}
