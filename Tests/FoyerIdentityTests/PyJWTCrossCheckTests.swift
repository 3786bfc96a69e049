import Foundation
import FoyerAPI
import FoyerCrypto
import FoyerIdentity
import FoyerRPC
import FoyerTestSupport
import FoyerWire
import Testing

/// An access token issued by identity verifies with an outside implementation: Python's PyJWT (with its
/// `cryptography` backend) against the JWKS identity publishes, for each algorithm identity signs with.
@Suite("Cross-check with PyJWT")
struct PyJWTCrossCheckTests {
    private struct Request: Encodable {
        var token: String
        /// The JWK Set JSON as identity published it.
        var jwks: String
        var issuer: String
        var audience: String
    }

    private struct Response: Decodable {
        struct Claims: Decodable {
            var sub: String
            var is_anonymous: Bool
            var sid: String
            var iss: String
            var aud: String
            var iat: Int64
            var exp: Int64
        }

        var valid: Bool
        var claims: Claims?
        var header: [String: String]
        var error: String?
        var tamperedRejected: Bool
        var wrongAudienceRejected: Bool
        var wrongIssuerRejected: Bool
    }

    @Test(
        "PyJWT verifies identity's access token against the published JWKS, and rejects tampered, wrong-audience and wrong-issuer variants",
        arguments: JWSAlgorithm.allCases
    )
    func pyjwtVerifies(algorithm: JWSAlgorithm) async throws {
        try await withIdentity(.sqlite, configure: { $0.signingAlgorithm = algorithm }) { identity in
            let guest = try await identity.newGuest()
            let jwks = try await identity.call(IdentityMethods.getJWKS, Empty()).json
            let request = Request(
                token: guest.accessToken,
                jwks: String(decoding: jwks, as: UTF8.self),
                issuer: "http://127.0.0.1:7480",
                audience: "foyer-app"
            )
            let output = try await PythonScript.run(
                TestIdentityProvider.script,
                arguments: ["verify"],
                input: JSONEncoder().encode(request),
                missingPackages: [
                    3: "run `make deps` to install Python's cryptography package",
                    4: "install PyJWT (`python3 -m pip install pyjwt`, which `make deps` does)",
                ]
            )
            let response = try JSONDecoder().decode(Response.self, from: output)
            #expect(response.valid, "PyJWT rejected the token: \(response.error ?? "?")")
            #expect(response.header["alg"] == algorithm.rawValue && response.header["typ"] == "at+jwt")
            let claims = try #require(response.claims)
            #expect(claims.sub == guest.uid && claims.is_anonymous && claims.sid == guest.sessionID)
            #expect(
                claims.iss == "http://127.0.0.1:7480" && claims.aud == "foyer-app" && claims.exp - claims.iat == 900
            )
            #expect(response.tamperedRejected && response.wrongAudienceRejected && response.wrongIssuerRejected)
        }
    }
}
