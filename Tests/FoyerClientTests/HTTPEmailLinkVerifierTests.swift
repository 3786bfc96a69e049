import Crypto
import Foundation
import FoyerBase64URL
import FoyerClient
import FoyerJSON
import Testing

/// The email link's verifier over HTTP as a client written from RFC 7636 sends it, and as clients made before sent it.
@Suite("Email-link verifiers over HTTP: PKCE S256")
struct HTTPEmailLinkVerifierTests {
    @Test("RFC 7636's own example signs in; the earlier base64url form still does; a wrong verifier is refused")
    func rfc7636() async throws {
        try await withHTTPEdge { edge in
            // RFC 7636, appendix B: the verifier's text, and base64url of SHA-256 of it.
            let rfc = try await signIn(
                edge,
                challenge: "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM",
                verifier: "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"
            )
            #expect(rfc.status == 200, "\(rfc.json ?? .null)")

            // A client made before hashed the bytes its base64url verifier decodes to.
            let secret = (0..<32).map { _ in UInt8.random(in: 0...255) }
            let earlier = try await signIn(
                edge,
                challenge: Base64URL.encode(Array(SHA256.hash(data: secret))),
                verifier: Base64URL.encode(secret)
            )
            #expect(earlier.status == 200, "\(earlier.json ?? .null)")

            let wrong = try await signIn(
                edge,
                challenge: "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM",
                verifier: "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXx"
            )
            #expect(wrong.status == 400 && wrong["code"] == "verifier-mismatch", "\(wrong.json ?? .null)")

            // A verifier outside RFC 7636's characters is refused before it reaches identity.
            let bad = try await edge.send(
                "POST",
                "/v1/email-links/complete",
                json: ["purpose": "sign-in", "token": "t", "verifier": "not/base64+="]
            )
            #expect(bad.status == 400 && bad["code"] == "invalid-argument")
        }
    }

    /// Asks for a sign-in link under `challenge` for a new address and redeems it with `verifier`.
    private func signIn(_ edge: HTTPEdge, challenge: String, verifier: String) async throws -> HTTPEdge.Answer {
        let email = "pkce-\(UUID().uuidString.prefix(8).lowercased())@example.com"
        let started = try await edge.send(
            "POST",
            "/v1/email-links",
            json: ["purpose": "sign-in", "email": .string(email), "verifierChallenge": .string(challenge)]
        )
        #expect(started.status == 202)
        let message = try #require(try await edge.stack.outbox(to: email, limit: 1).first)
        let token = try #require(EmailLinkVerifier.token(fromLink: message.body))
        return try await edge.send(
            "POST",
            "/v1/email-links/complete",
            json: ["purpose": "sign-in", "token": .string(token), "verifier": .string(verifier)]
        )
    }
}
