import Foundation
import FoyerCrypto
import FoyerStorage
import FoyerTestSupport
import FoyerWebhooks
import Testing

@testable import FoyerIdentity

@Suite("Sign in with Apple revocation settings")
struct AppleRevocationSettingsTests {
    @Test("Settings that cannot work stop the start: no key-encryption key, plain http, empty ids, a bad key file")
    func invalidSettings() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "foyer-apple-\(UUID().uuidString)"
        )
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let keyFile = directory.appendingPathComponent("key.p8")
        let pem = try await TestIdentityProvider.generate([("apple-settings-key", "ES256")]).keys[0].pem ?? ""
        try Data(pem.utf8).write(to: keyFile)
        let garbage = directory.appendingPathComponent("garbage.p8")
        try Data("-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n".utf8).write(to: garbage)

        let broken: [(String, (inout IdentityConfiguration) -> Void)] = [
            ("no key-encryption key", { $0.signingKeyEncryptionKey = nil }),
            (
                "a plain-http endpoint without test identity providers",
                {
                    $0.appleRevocation?.endpoint = "http://127.0.0.1:1"
                    $0.allowTestIdentityProviders = false
                }
            ),
            ("an empty team id", { $0.appleRevocation?.teamID = "" }),
            ("an empty key id", { $0.appleRevocation?.keyID = "" }),
            ("a client secret over 6 months", { $0.appleRevocation?.clientSecretLifetime = .seconds(200 * 86_400) }),
            ("a missing key file", { $0.appleRevocation?.keyFile = directory.appendingPathComponent("none").path }),
            ("a key file without a P-256 key", { $0.appleRevocation?.keyFile = garbage.path }),
        ]
        try await withTestDatabase(.sqlite) { database in
            var valid = testIdentityConfiguration(database: database.configuration, clock: TestClock())
            valid.signingKeyEncryptionKey = try SigningKeyEncryptionKey(bytes: SecureRandom.bytes(count: 32))
            valid.appleRevocation = AppleRevocationSettings(teamID: "TEAM", keyID: "KEY", keyFile: keyFile.path)
            let service = try await IdentityService.make(
                configuration: valid,
                database: database,
                server: testServerConfiguration(service: "identity"),
                logger: TestLogging.logger("test")
            )
            try await service.close()
            for (name, breakIt) in broken {
                var configuration = valid
                breakIt(&configuration)
                await #expect(throws: IdentityConfigurationError.self, "\(name)") {
                    _ = try await IdentityService.make(
                        configuration: configuration,
                        database: database,
                        server: testServerConfiguration(service: "identity"),
                        logger: TestLogging.logger("test")
                    )
                }
            }
        }
    }

    @Test("Form fields are percent-encoded except the unreserved characters")
    func formEncoding() {
        #expect(HTTPForm.encoded([("aZ09-._~", "a+b/c=d&e f\u{E9}")]) == "aZ09-._~=a%2Bb%2Fc%3Dd%26e%20f%C3%A9")
        #expect(HTTPForm.encoded([("a b", "x&y=z+é~._-"), ("k", "")]) == "a%20b=x%26y%3Dz%2B%C3%A9~._-&k=")
    }
}
