import Foundation
import FoyerAPI
import FoyerClient
import FoyerTestSupport
import Testing

/// The gateway transport a test's clients speak.
enum GatewayTransportKind: String, CaseIterable, Sendable, CustomStringConvertible {
    case binary, http

    var description: String { rawValue }
}

extension HTTPEdge {
    /// Runs `body` with a client of the stack's binary listener or of its HTTP listener, holding `session`.
    func withClient<T: Sendable>(
        _ transport: GatewayTransportKind,
        session: SessionTokens? = nil,
        _ body: (FoyerClient) async throws -> T
    ) async throws -> T {
        switch transport {
        case .binary:
            return try await stack.withClient(session: session, body)
        case .http:
            var configuration = FoyerClientConfiguration(httpBaseURL: try #require(URL(string: baseURL)))
            configuration.now = stack.clock.now
            return try await withFoyerClient(
                configuration: configuration,
                session: session,
                logger: TestLogging.logger("foyer.test.client.http"),
                body
            )
        }
    }
}

@Suite("Account management through FoyerClient, over both gateway transports")
struct AccountManagementClientTests {
    /// The token of the newest email to `email` in identity's outbox.
    private func newestMail(to email: String, _ stack: Stack) async throws -> String {
        try #require(try await stack.outbox(to: email, limit: 1).first).body
    }

    @Test(
        "A reset signs every device out, works once, answers unknown addresses alike; the data stays",
        arguments: GatewayTransportKind.allCases
    )
    func passwordReset(transport: GatewayTransportKind) async throws {
        try await withHTTPEdge { edge in
            let email = uniqueEmail("reset")
            let nobody = uniqueEmail("nobody")
            try await edge.withClient(transport) { first in
                try await first.signInAsGuest()
                let uid = try #require(try await first.link(email: email, password: strongPassword).session?.uid)
                try await first.put("notes", "n", "kept")
                try await edge.withClient(transport) { second in
                    try await second.signIn(email: email, password: strongPassword)
                    try await edge.withClient(transport) { device in
                        let verifier = try await device.startPasswordReset(email: email)
                        try await device.startPasswordReset(email: nobody)
                        #expect(!(try await newestMail(to: nobody, edge.stack)).contains("token="))
                        let link = try await newestMail(to: email, edge.stack)
                        #expect(link.contains("foyer://password-reset#token="))
                        // The link is bound to the client that asked: without its verifier it does nothing.
                        await expectError(.verifierMismatch) {
                            try await device.completePasswordReset(
                                token: link,
                                verifier: nil,
                                newPassword: "x passphrase"
                            )
                        }
                        let session = try await device.completePasswordReset(
                            token: link,
                            verifier: verifier,
                            newPassword: "a new passphrase"
                        )
                        #expect(session.uid == uid)
                        await expectError(.tokenAlreadyUsed) {
                            try await device.completePasswordReset(
                                token: link,
                                verifier: verifier,
                                newPassword: "another passphrase"
                            )
                        }
                        // The sessions from before the reset are gone, access and refresh tokens alike.
                        await expectError(.tokenRevoked) { try await first.me() }
                        await expectError(.tokenRevoked) { try await second.refreshSession() }
                        #expect(try await device.get("notes", "n")?.text == "kept")
                        await expectError(.invalidCredentials) {
                            try await second.signIn(email: email, password: strongPassword)
                        }
                        try await second.signIn(email: email, password: "a new passphrase")
                    }
                }
            }
        }
    }

    @Test(
        "A password change needs the current password or a recent sign-in; unlinking refuses the last credential",
        arguments: GatewayTransportKind.allCases
    )
    func changeAndUnlink(transport: GatewayTransportKind) async throws {
        try await withHTTPEdge { edge in
            let email = uniqueEmail("change")
            try await edge.withClient(transport) { client in
                try await client.signInAsGuest()
                try await client.link(email: email, password: strongPassword)
                try await edge.withClient(transport) { other in
                    try await other.signIn(email: email, password: strongPassword)
                    // Just signed up: recent enough without the current password.
                    let changed = try await client.changePassword(
                        currentPassword: nil,
                        newPassword: "second passphrase"
                    )
                    #expect(await client.session?.sessionID == changed.sessionID)
                    await expectError(.tokenRevoked) { try await other.me() }
                    _ = try await client.me()
                }
                edge.stack.clock.advance(by: 301)
                await expectError(.recentSignInRequired) {
                    try await client.changePassword(currentPassword: nil, newPassword: "third passphrase")
                }
                await expectError(.invalidCredentials) {
                    try await client.changePassword(currentPassword: "not it at all", newPassword: "third passphrase")
                }
                try await client.changePassword(currentPassword: "second passphrase", newPassword: "third passphrase")
                await expectError(.lastCredential) { try await client.unlinkCredential(.email) }
                await expectError(.credentialNotFound) { try await client.unlinkCredential(.google) }
                #expect(try await client.me().user.email == email)
            }
        }
    }

    @Test(
        "Signing out everywhere ends every session of a member; a guest is answered members-only",
        arguments: GatewayTransportKind.allCases
    )
    func signOutEverywhere(transport: GatewayTransportKind) async throws {
        try await withHTTPEdge { edge in
            let email = uniqueEmail("everywhere")
            try await edge.withClient(transport) { client in
                try await client.signInAsGuest()
                await expectError(.membersOnly) { try await client.signOutEverywhere() }
                try await client.link(email: email, password: strongPassword)
                try await edge.withClient(transport) { other in
                    try await other.signIn(email: email, password: strongPassword)
                    let before = try #require(await client.session)
                    try await client.signOutEverywhere()
                    #expect(await client.session == nil)
                    await expectError(.tokenRevoked) { try await other.me() }
                    // The caller's own tokens from before, presented again, are refused too.
                    try await edge.withClient(transport, session: before) { stale in
                        _ = await expectError(.tokenRevoked) { try await stale.me() }
                    }
                    try await other.signIn(email: email, password: strongPassword)
                    _ = try await other.me()
                }
            }
        }
    }

    @Test(
        "An email change: the link goes to the new address, the credential moves, the old address is told",
        arguments: GatewayTransportKind.allCases
    )
    func emailChange(transport: GatewayTransportKind) async throws {
        try await withHTTPEdge { edge in
            let old = uniqueEmail("old")
            let new = uniqueEmail("new")
            try await edge.withClient(transport) { client in
                try await client.signInAsGuest()
                try await client.link(email: old, password: strongPassword)
                let verifier = try await client.startEmailChange(to: new, currentPassword: nil)
                let link = try await newestMail(to: new, edge.stack)
                try await edge.withClient(transport) { device in
                    try await device.completeEmailChange(token: link, verifier: verifier)
                    await expectError(.tokenAlreadyUsed) {
                        try await device.completeEmailChange(token: link, verifier: verifier)
                    }
                    await expectError(.invalidCredentials) {
                        try await device.signIn(email: old, password: strongPassword)
                    }
                    try await device.signIn(email: new, password: strongPassword)
                }
                #expect(try await client.me().user.email == new)
                // Told when the change was asked for and when it was made (the test clock stands still: no order).
                let subjects = Set(try await edge.stack.outbox(to: old, limit: 10).map(\.subject))
                #expect(subjects == ["Someone asked to change your email address", "Your email address was changed"])
                edge.stack.clock.advance(by: 301)
                await expectError(.recentSignInRequired) {
                    try await client.startEmailChange(to: uniqueEmail("later"), currentPassword: nil)
                }
            }
        }
    }
}
