import Foundation
import FoyerAPI
import FoyerClient
import FoyerTestSupport
import Testing

@Suite("Email codes through FoyerClient, over both gateway transports")
struct EmailCodeClientTests {
    /// The code in the newest email to `email` in identity's outbox.
    private func code(to email: String, _ stack: Stack) async throws -> String {
        let message = try #require(try await stack.outbox(to: email, limit: 1).first)
        return try #require(EmailCode.code(inMessage: message.body))
    }

    @Test(
        "A code asked for on one client signs in on another, spends the link, and works once",
        arguments: GatewayTransportKind.allCases
    )
    func signInOnAnotherClient(transport: GatewayTransportKind) async throws {
        try await withHTTPEdge { edge in
            let email = uniqueEmail("code")
            let verifier = try await edge.withClient(transport) { asking in
                try await asking.sendEmailLink(to: email, purpose: .signIn)
            }
            let link = try #require(try await edge.stack.outbox(to: email, limit: 1).first).body
            let code = try await code(to: email, edge.stack)
            try await edge.withClient(transport) { other in
                let result = try await other.completeEmailCode(code, email: email, purpose: .signIn)
                #expect(result.outcome == .linked && result.session?.isAnonymous == false)
                #expect(try await other.me().user.email == email)
                await expectError(.tokenAlreadyUsed) {
                    try await other.completeEmailCode(code, email: email, purpose: .signIn)
                }
                await expectError(.tokenAlreadyUsed) {
                    try await other.completeEmailLink(token: link, verifier: verifier, purpose: .signIn)
                }
            }
        }
    }

    @Test(
        "A guest links its address with a code: same uid and data; a wrong code is invalid-credentials",
        arguments: GatewayTransportKind.allCases
    )
    func guestLinksWithCode(transport: GatewayTransportKind) async throws {
        try await withHTTPEdge { edge in
            try await edge.withClient(transport) { client in
                let guest = try await client.signInAsGuest()
                try await client.put("notes", "n", "v")
                let email = uniqueEmail("code-link")
                try await client.sendEmailLink(to: email, purpose: .link)
                let code = try await code(to: email, edge.stack)
                let wrong = String(code.dropLast()) + (code.hasSuffix("0") ? "1" : "0")
                await expectError(.invalidCredentials) {
                    try await client.completeEmailCode(wrong, email: email, purpose: .link)
                }
                // Typed with a space, as people do.
                let spaced = String(code.prefix(3)) + " " + String(code.dropFirst(3))
                let result = try await client.completeEmailCode(spaced, email: email, purpose: .link)
                #expect(result.outcome == .linked && result.session?.uid == guest.uid)
                let me = try await client.me()
                #expect(me.user.email == email && me.user.emailVerified && !me.user.isAnonymous)
                #expect(try await client.get("notes", "n")?.text == "v")
            }
        }
    }

    @Test(
        "A code that is not six digits is refused before identity, on either transport",
        arguments: GatewayTransportKind.allCases
    )
    func malformedCode(transport: GatewayTransportKind) async throws {
        _ = try await withHTTPEdge { edge in
            try await edge.withClient(transport) { client in
                await expectError(.invalidArgument) {
                    try await client.completeEmailCode("12345", email: uniqueEmail("short"), purpose: .signIn)
                }
            }
        }
    }
}
