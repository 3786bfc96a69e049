import Foundation
import FoyerAPI
import FoyerCrypto
import FoyerIdentity
import FoyerRPC
import FoyerStorage
import FoyerTestSupport
import FoyerWire
import Testing

@Suite("Signing keys and the JWKS")
struct SigningKeyTests {
    @Test(
        "The key is created on first start, kept across restarts, rotated on request; retired keys stay published until their tokens expire",
        arguments: TestEngine.allCases
    )
    func lifecycle(engine: TestEngine) async throws {
        let clock = TestClock()
        try await withTestDatabase(engine) { database in
            let configuration = testIdentityConfiguration(database: database.configuration, clock: clock)
            let (firstKeys, token) = try await withIdentity(
                database: database,
                configuration: configuration,
                clock: clock
            ) {
                identity in
                let keys = try JWKSet(json: try await identity.service.jwksJSON())
                #expect(keys.keys.count == 1 && keys.keys[0].kty == "EC" && keys.keys[0].alg == "ES256")
                #expect(
                    try await identity.call(IdentityMethods.getJWKS, Empty()).json
                        == (try await identity.service.jwksJSON())
                )
                return (keys, try await identity.newGuest())
            }
            try await withIdentity(database: database, configuration: configuration, clock: clock) { identity in
                #expect(try JWKSet(json: try await identity.service.jwksJSON()) == firstKeys)
                let rotated = try await identity.call(IdentityMethods.rotateSigningKey, Empty())
                #expect(rotated.keyID != firstKeys.keys[0].kid)
                let both = try JWKSet(json: try await identity.service.jwksJSON())
                #expect(Set(both.keys.compactMap(\.kid)) == Set([rotated.keyID, firstKeys.keys[0].kid!]))
                // Tokens of the old key still verify. The new key is published at once but signs only after the
                // activation delay: until then the old key goes on signing.
                _ = try await identity.call(
                    IdentityMethods.verifyAccessToken,
                    VerifyAccessTokenRequest(accessToken: token.accessToken)
                )
                let firstKeyID = try #require(firstKeys.keys[0].kid)
                #expect(try JWT.decode(try await identity.newGuest().accessToken).keyID == firstKeyID)
                identity.clock.advance(by: configuration.signingKeyActivationDelay - .seconds(1))
                #expect(try JWT.decode(try await identity.newGuest().accessToken).keyID == firstKeyID)
                identity.clock.advance(by: .seconds(1))
                let fresh = try await identity.newGuest()
                #expect(try JWT.decode(fresh.accessToken).keyID == rotated.keyID)
                // Once every token of the old key has expired, it is no longer published, and maintenance drops it.
                identity.clock.advance(by: .seconds(15 * 60 + 61))
                #expect(try JWKSet(json: try await identity.service.jwksJSON()).keys.map(\.kid) == [rotated.keyID])
                try await identity.service.runMaintenance()
                #expect(try await identity.count("identity_signing_keys") == 1)
            }
        }
    }
}
