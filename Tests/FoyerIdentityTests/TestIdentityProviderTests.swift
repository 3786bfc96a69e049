import Foundation
import FoyerAPI
import FoyerIdentity
import FoyerRPC
import FoyerStorage
import FoyerTestSupport
import Testing

@Suite("Stand-in identity providers are for tests only")
struct TestIdentityProviderTests {
    /// Starts (and stops) identity with `apple` keys from `keys`; the error that stopped the start, if one did.
    private func startError(_ keys: ProviderSettings.KeySource, allowTest: Bool) async throws -> (any Error)? {
        try await withTestDatabase(.sqlite) { database in
            var configuration = testIdentityConfiguration(database: database.configuration, clock: TestClock())
            configuration.allowTestIdentityProviders = allowTest
            var apple = ProviderSettings.apple(audiences: [appleAudience])
            apple.keys = keys
            configuration.apple = apple
            do {
                let service = try await IdentityService.make(
                    configuration: configuration,
                    database: database,
                    server: testServerConfiguration(service: "identity"),
                    logger: TestLogging.logger("test")
                )
                try await service.close()
                return nil
            } catch {
                return error
            }
        }
    }

    @Test(
        "Provider keys from a JWKS file or a plain-http URL stop the start unless test identity providers are allowed"
    )
    func refusedWithoutTheFlag() async throws {
        #expect(
            IdentityConfiguration(database: DatabaseConfiguration(engine: .sqlite(path: "/x")))
                .allowTestIdentityProviders == false
        )
        for keys in [ProviderSettings.KeySource.file("/tmp/apple-jwks.json"), .url("http://127.0.0.1:9/keys")] {
            let error = try await startError(keys, allowTest: false)
            let refusal = try #require(error as? IdentityConfigurationError, "\(keys)")
            #expect(refusal.description.contains("for tests only"))
            #expect(refusal.description.contains("--allow-test-identity-providers"))
            #expect(try await startError(keys, allowTest: true) == nil, "\(keys) with the flag")
        }
        // The provider's own https URL needs no flag.
        #expect(try await startError(.url("https://appleid.apple.com/auth/keys"), allowTest: false) == nil)
    }
}
