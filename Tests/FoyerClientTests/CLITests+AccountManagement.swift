import Foundation
import FoyerAPI
import FoyerClient
import Testing

extension CLITests {
    @Test("reset-password send and complete, change-password, unlink, change-email, sign-out-everywhere")
    func accountManagement() async throws {
        try await withStack { stack in
            let session = stack.sessionFile("manage")
            let email = uniqueEmail("cli-manage")
            _ = try await ok(stack, "guest", session: session)
            let signUp = try await ok(
                stack,
                "sign-up",
                "--email",
                email,
                "--password",
                strongPassword,
                session: session
            )
            let uid = try #require(signUp["uid"] as? String)

            let sent = try await ok(stack, "reset-password", "send", "--email", email)
            #expect(sent["sent"] as? Bool == true)
            let resetVerifier = try #require(sent["verifier"] as? String)
            let link = try #require(try await stack.outbox(to: email, limit: 1).first).body
            let device = stack.sessionFile("reset")
            let reset = try await ok(
                stack,
                "reset-password",
                "complete",
                "--token",
                link,
                "--verifier",
                resetVerifier,
                "--new-password",
                "a reset passphrase",
                session: device
            )
            #expect(reset["uid"] as? String == uid)
            // The session from before the reset is signed out.
            let old = try await fails(stack, "me", session: session)
            #expect(old.error["error"] as? String == "token-revoked")

            let passwordFile = stack.directory.appendingPathComponent("current-password").path
            try "a reset passphrase\n".write(toFile: passwordFile, atomically: true, encoding: .utf8)
            let changed = try await ok(
                stack,
                "change-password",
                "--current-password-file",
                passwordFile,
                "--new-password",
                "a changed passphrase",
                session: device
            )
            #expect(changed["uid"] as? String == uid)
            let last = try await fails(stack, "unlink", "email", session: device)
            #expect(last.error["error"] as? String == "last-credential")
            let other = stack.sessionFile("other")
            _ = try await ok(
                stack,
                "sign-in",
                "--email",
                email,
                "--password",
                "a changed passphrase",
                session: other
            )
            let newEmail = uniqueEmail("cli-moved")
            let asked = try await ok(
                stack,
                "change-email",
                "send",
                "--new-email",
                newEmail,
                "--current-password",
                "a changed passphrase",
                session: device
            )
            #expect(asked["sent"] as? Bool == true)
            let changeVerifier = try #require(asked["verifier"] as? String)
            let changeLink = try #require(try await stack.outbox(to: newEmail, limit: 1).first).body
            let moved = try await ok(
                stack,
                "change-email",
                "complete",
                "--token",
                changeLink,
                "--verifier",
                changeVerifier
            )
            #expect(moved["changed"] as? Bool == true)
            let me = try await ok(stack, "me", session: device)
            #expect(me["email"] as? String == newEmail)
            let everywhere = try await ok(stack, "sign-out-everywhere", session: device)
            #expect(everywhere["uid"] as? String == uid && everywhere["signedOut"] as? Bool == true)
            let afterwards = try await fails(stack, "me", session: other)
            #expect(afterwards.error["error"] as? String == "token-revoked")
        }
    }
}
