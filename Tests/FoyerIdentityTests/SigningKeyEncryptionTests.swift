import Foundation
import FoyerAPI
import FoyerCrypto
import FoyerIdentity
import FoyerStorage
import FoyerTestSupport
import FoyerWire
import SQLKit
import Testing

@Suite("Signing keys sealed at rest with the key-encryption key")
struct SigningKeyEncryptionTests {
    /// A new key-encryption key with its bytes (to check the stored rows from outside).
    struct TestKEK {
        let bytes = SecureRandom.bytes(count: 32)
        var key: SigningKeyEncryptionKey { try! SigningKeyEncryptionKey(bytes: bytes) }
    }

    /// A row of `identity_signing_keys` as stored.
    struct StoredRow {
        let keyID: String
        let algorithm: JWSAlgorithm
        let privateKey: [UInt8]
        let kekID: String?
        let retired: Bool
    }

    static func rows(_ database: FoyerDatabase) async throws -> [StoredRow] {
        try await database.withConnection { sql in
            try await sql.raw(
                "SELECT kid, algorithm, private_key, kek_id, retired_at FROM identity_signing_keys ORDER BY kid"
            )
            .all().map { row in
                StoredRow(
                    keyID: try row.decode(column: "kid", as: String.self),
                    algorithm: try #require(JWSAlgorithm(rawValue: row.decode(column: "algorithm", as: String.self))),
                    privateKey: try row.decodeBytes(column: "private_key"),
                    kekID: try row.decode(column: "kek_id", as: String?.self),
                    retired: try row.decodeOptionalDate(column: "retired_at") != nil
                )
            }
        }
    }

    /// The kids the service publishes.
    static func published(_ identity: IdentityHarness) async throws -> Set<String> {
        Set(try JWKSet(json: try await identity.service.jwksJSON()).keys.compactMap(\.kid))
    }

    /// Checks that `row` is sealed with `kek` for its own kid, that what it seals is a key of the row's algorithm
    /// whose id is the kid, and that the stored bytes do not contain that key in clear.
    static func expectSealed(
        _ row: StoredRow,
        with kek: TestKEK,
        sourceLocation: SourceLocation = #_sourceLocation
    )
        throws
    {
        #expect(row.kekID == kek.key.id, sourceLocation: sourceLocation)
        let seed = try AES256GCM.open(
            AES256GCM.SealedBox(combined: row.privateKey),
            key: kek.bytes,
            associatedData: Array(row.keyID.utf8)
        )
        #expect(row.privateKey.count == 12 + seed.count + 16, sourceLocation: sourceLocation)
        let key = try JWTSigningKey(algorithm: row.algorithm, storedRepresentation: seed)
        #expect(key.verificationKey.derivedKeyID == row.keyID, sourceLocation: sourceLocation)
        let stored = row.privateKey
        let containsSeed = (0...(stored.count - seed.count)).contains { Array(stored[$0..<$0 + seed.count]) == seed }
        #expect(!containsSeed, sourceLocation: sourceLocation)
    }

    /// `IdentityService.make` on `database` with `configure` applied fails; returns its message.
    static func startFailure(
        _ database: FoyerDatabase,
        clock: TestClock,
        _ configure: (inout IdentityConfiguration) -> Void
    ) async throws -> String {
        var configuration = testIdentityConfiguration(database: database.configuration, clock: clock)
        configure(&configuration)
        do {
            let service = try await IdentityService.make(
                configuration: configuration,
                database: database,
                server: testServerConfiguration(service: "identity"),
                logger: TestLogging.logger("foyer.identity")
            )
            try await service.close()
        } catch let error as IdentityConfigurationError {
            return error.description
        }
        throw TestFailure("identity started")
    }

    @Test(
        "With a KEK, keys are stored sealed (naming the KEK, not holding the seed); tokens signed before and after a restart with it verify",
        arguments: TestEngine.allCases
    )
    func sealedAcrossRestarts(engine: TestEngine) async throws {
        let clock = TestClock()
        let kek = TestKEK()
        try await withTestDatabase(engine) { database in
            var configuration = testIdentityConfiguration(database: database.configuration, clock: clock)
            configuration.signingKeyEncryptionKey = kek.key
            let (before, keys) = try await withIdentity(database: database, configuration: configuration, clock: clock)
            { identity in
                _ = try await identity.call(IdentityMethods.rotateSigningKey, Empty())
                return (try await identity.newGuest(), try await Self.published(identity))
            }
            let rows = try await Self.rows(database)
            #expect(rows.count == 2 && Set(rows.map(\.keyID)) == keys)
            for row in rows { try Self.expectSealed(row, with: kek) }

            try await withIdentity(database: database, configuration: configuration, clock: clock) { identity in
                #expect(try await Self.published(identity) == keys)
                let after = try await identity.newGuest()
                #expect(try JWT.decode(after.accessToken).keyID == JWT.decode(before.accessToken).keyID)
                for token in [before, after] {
                    _ = try await identity.call(
                        IdentityMethods.verifyAccessToken,
                        VerifyAccessTokenRequest(accessToken: token.accessToken)
                    )
                }
            }
        }
    }

    @Test(
        "Keys kept in clear are sealed at start; then no KEK, or another KEK, stops the start with its message; the previous KEK re-seals",
        arguments: TestEngine.allCases
    )
    func sealingAndRefusals(engine: TestEngine) async throws {
        let clock = TestClock()
        let (first, second) = (TestKEK(), TestKEK())
        try await withTestDatabase(engine) { database in
            let plain = testIdentityConfiguration(database: database.configuration, clock: clock)
            let token = try await withIdentity(database: database, configuration: plain, clock: clock) { identity in
                _ = try await identity.call(IdentityMethods.rotateSigningKey, Empty())
                return try await identity.newGuest()
            }
            let clear = try await Self.rows(database)
            #expect(
                clear.count == 2
                    && clear.allSatisfy {
                        $0.kekID == nil
                            && (try? JWTSigningKey(algorithm: $0.algorithm, storedRepresentation: $0.privateKey)) != nil
                    }
            )

            // Two replicas start together with the KEK: the rows are sealed once, and both sign with the same key.
            var sealed = plain
            sealed.signingKeyEncryptionKey = first.key
            async let one = IdentityService.make(
                configuration: sealed,
                database: database,
                server: testServerConfiguration(service: "identity"),
                logger: TestLogging.logger("foyer.identity")
            )
            async let two = IdentityService.make(
                configuration: sealed,
                database: database,
                server: testServerConfiguration(service: "identity"),
                logger: TestLogging.logger("foyer.identity")
            )
            let replicas = try await [one, two]
            for replica in replicas {
                #expect(
                    try JWKSet(json: try await replica.jwksJSON()) == JWKSet(json: try await replicas[0].jwksJSON())
                )
                try await replica.close()
            }
            let rows = try await Self.rows(database)
            #expect(rows.map(\.keyID) == clear.map(\.keyID))
            for row in rows { try Self.expectSealed(row, with: first) }

            try await withIdentity(database: database, configuration: sealed, clock: clock) { identity in
                _ = try await identity.call(
                    IdentityMethods.verifyAccessToken,
                    VerifyAccessTokenRequest(accessToken: token.accessToken)
                )
            }

            let missing = try await Self.startFailure(database, clock: clock) { _ in }
            #expect(
                missing.contains(first.key.id) && missing.contains("--signing-key-encryption-key-file"),
                "\(missing)"
            )
            let wrong = try await Self.startFailure(database, clock: clock) { $0.signingKeyEncryptionKey = second.key }
            #expect(wrong.contains(first.key.id) && wrong.contains(second.key.id), "\(wrong)")
            #expect(
                try await Self.rows(database).map(\.privateKey) == rows.map(\.privateKey),
                "a refused start changes nothing"
            )

            var changed = sealed
            changed.signingKeyEncryptionKey = second.key
            changed.previousSigningKeyEncryptionKey = first.key
            try await withIdentity(database: database, configuration: changed, clock: clock) { identity in
                _ = try await identity.call(
                    IdentityMethods.verifyAccessToken,
                    VerifyAccessTokenRequest(accessToken: token.accessToken)
                )
            }
            for row in try await Self.rows(database) { try Self.expectSealed(row, with: second) }
        }
    }
}
