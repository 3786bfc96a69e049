import Foundation
import FoyerAPI
import FoyerCrypto
import FoyerIdentity
import FoyerRPC
import FoyerStorage
import FoyerTestSupport
import FoyerWire
import Testing

@Suite("Configuration")
struct ConfigurationTests {
    @Test("The documented defaults")
    func defaults() {
        let configuration = IdentityConfiguration(
            database: DatabaseConfiguration(engine: .sqlite(path: "/tmp/x.sqlite"))
        )
        #expect(configuration.issuer == "http://127.0.0.1:7480" && configuration.audience == "foyer-app")
        #expect(configuration.signingAlgorithm == .es256)
        #expect(configuration.accessTokenLifetime == .seconds(900))
        #expect(configuration.refreshReuseGrace == .seconds(30))
        #expect(configuration.password.algorithm == .argon2id)
        #expect(configuration.password.argon2 == Argon2Parameters(memoryKiB: 19_456, iterations: 2, parallelism: 1))
        #expect(configuration.password.scrypt == ScryptParameters(logN: 17, r: 8, p: 1, maxMemoryBytes: 256 << 20))
        #expect(configuration.emailLink.lifetime == .seconds(600))
        #expect(configuration.mailer == .disabled && !configuration.localMode)
        #expect(configuration.emailLink.outboxRetention == .seconds(3600))
        #expect(configuration.failedLogins.perAddressFailuresMax == 90)
        #expect(configuration.emailLink.globalReserve == 200 && configuration.emailLink.perAddressResetMax == 3)
        #expect(configuration.emailLink.perSourcePastGlobalMax == 2 && configuration.emailLink.pastGlobalMax == 1000)
        #expect(configuration.apple == nil && configuration.google == nil)
        let apple = ProviderSettings.apple(audiences: ["com.example"])
        #expect(
            apple.issuers == ["https://appleid.apple.com"] && apple.keys == .url("https://appleid.apple.com/auth/keys")
        )
        #expect(ProviderSettings.google(audiences: ["x"]).issuers.contains("accounts.google.com"))
    }

    @Test("Settings that cannot work, or would weaken the service silently, stop the start")
    func invalidSettings() async throws {
        let broken: [(String, (inout IdentityConfiguration) -> Void)] = [
            ("long email links", { $0.emailLink.lifetime = .seconds(3600) }),
            ("template without token", { $0.emailLink.linkTemplate = "https://example.com/" }),
            (
                "scrypt memory",
                { $0.password.scrypt = ScryptParameters(logN: 17, r: 8, p: 1, maxMemoryBytes: 32 << 20) }
            ),
            (
                "argon2 memory",
                { $0.password.argon2 = Argon2Parameters(memoryKiB: 4, iterations: 2, parallelism: 1) }
            ),
            ("no audiences", { $0.apple = ProviderSettings(issuers: ["i"], audiences: [], keys: .file("/x")) }),
            ("bad key URL", { $0.google = ProviderSettings(issuers: ["i"], audiences: ["a"], keys: .url("ftp://x")) }),
            ("empty issuer", { $0.issuer = "" }),
            (
                "the outbox outside local mode",
                {
                    $0.mailer = .outbox
                    $0.localMode = false
                }
            ),
            ("SMTP credentials without TLS", { $0.mailer = .smtp(Self.smtp(.none, credentials: true)) }),
            ("SMTP user without password", { $0.mailer = .smtp(Self.smtp(.startTLS, credentials: false, user: "u")) }),
            ("an empty webhook secret", { $0.mailer = .webhook(url: "https://mail.example/hook", secret: "") }),
            ("no webhook secret", { $0.mailer = .webhook(url: "https://mail.example/hook", secret: nil) }),
            (
                "a short webhook secret",
                { $0.mailer = .webhook(url: "https://mail.example/hook", secret: "15 bytes secret") }
            ),
            (
                "a plain-http webhook off this host",
                { $0.mailer = .webhook(url: "http://mail.example/hook", secret: "a sixteen-byte hook secret") }
            ),
            ("a sender that is no address", { $0.emailLink.sender = "Foyer <nobody>" }),
            ("over 100 failed passwords an hour", { $0.failedLogins.perAddressFailuresMax = 101 }),
            ("a count forgotten twice an hour", { $0.failedLogins.resetAfter = .seconds(1800) }),
            ("a reserve as large as the budget", { $0.emailLink.globalReserve = $0.emailLink.globalMax }),
        ]
        try await withTestDatabase(.sqlite) { database in
            for (name, breakIt) in broken {
                var configuration = testIdentityConfiguration(database: database.configuration, clock: TestClock())
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

    private static func smtp(
        _ security: SMTPSettings.Security,
        credentials: Bool,
        user: String? = nil
    ) -> SMTPSettings {
        var settings = SMTPSettings(host: "smtp.example.com", security: security)
        settings.username = credentials ? "user" : user
        settings.password = credentials ? "password" : nil
        return settings
    }

    @Test("make opens and migrates the configured database, serves, and close() closes it")
    func ownsItsDatabase() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "foyer-identity-\(UUID().uuidString)"
        )
        defer { try? FileManager.default.removeItem(at: directory) }
        let database = try DatabaseConfiguration.parse(
            "sqlite:",
            dataDirectory: directory.path,
            defaultFileName: "identity.sqlite"
        )
        let configuration = testIdentityConfiguration(database: database, clock: TestClock())
        // Twice: the second start finds the schema and the signing key of the first.
        var keySets: [JWKSet] = []
        for _ in 0..<2 {
            let service = try await IdentityService.make(
                configuration: configuration,
                server: testServerConfiguration(service: "identity"),
                logger: TestLogging.logger("foyer.identity")
            )
            #expect(service.backgroundServices.count == 1)
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { try await service.server.run() }
                let port = try await service.server.boundAddress().port!
                try await withTestClient(port: port, service: "identity") { client in
                    let health = try await client.call(BuiltinMethods.health, Empty())
                    #expect(health.service == "identity")
                    _ = try await client.call(
                        IdentityMethods.createGuest,
                        CreateGuestRequest(idempotencyKey: randomKey())
                    )
                }
                group.cancelAll()
            }
            keySets.append(try JWKSet(json: try await service.jwksJSON()))
            try await service.close()
        }
        #expect(keySets[0] == keySets[1] && keySets[0].keys.count == 1)
        #expect(FileManager.default.fileExists(atPath: directory.appendingPathComponent("identity.sqlite").path))
    }
}
