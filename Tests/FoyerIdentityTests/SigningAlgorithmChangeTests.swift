import Foundation
import FoyerAPI
import FoyerCrypto
import FoyerIdentity
import FoyerRPC
import FoyerTestSupport
import Testing

@Suite("Changing the signing algorithm")
struct SigningAlgorithmChangeTests {
    @Test(
        "Restarted with another algorithm, identity rotates to a key of it: the old key signs until the activation delay, both are published with their alg, and a second restart changes nothing",
        arguments: TestEngine.allCases
    )
    func restartRotates(engine: TestEngine) async throws {
        let clock = TestClock()
        try await withTestDatabase(engine) { database in
            var configuration = testIdentityConfiguration(database: database.configuration, clock: clock)
            configuration.signingAlgorithm = .edDSA
            let before = try await withIdentity(database: database, configuration: configuration, clock: clock) {
                try await $0.newGuest()
            }
            #expect(try JWT.decode(before.accessToken).algorithm == .edDSA)

            configuration.signingAlgorithm = .rs256
            try await withIdentity(database: database, configuration: configuration, clock: clock) { identity in
                let published = try JWKSet(json: try await identity.service.jwksJSON()).keys
                #expect(Set(published.compactMap(\.alg)) == ["EdDSA", "RS256"])
                #expect(try JWT.decode(try await identity.newGuest().accessToken).algorithm == .edDSA)
                identity.clock.advance(by: configuration.signingKeyActivationDelay)
                let after = try await identity.newGuest()
                #expect(try JWT.decode(after.accessToken).algorithm == .rs256)
                for token in [before, after] {
                    _ = try await identity.call(
                        IdentityMethods.verifyAccessToken,
                        VerifyAccessTokenRequest(accessToken: token.accessToken)
                    )
                }
            }
            try await withIdentity(database: database, configuration: configuration, clock: clock) {
                identity async throws -> Void in
                #expect(try await identity.count("identity_signing_keys") == 2)
                #expect(try JWT.decode(try await identity.newGuest().accessToken).algorithm == .rs256)
            }
        }
    }
}
