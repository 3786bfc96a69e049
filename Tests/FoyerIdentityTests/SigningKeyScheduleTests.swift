import Foundation
import FoyerAPI
import FoyerCrypto
import FoyerIdentity
import FoyerStorage
import FoyerTestSupport
import SQLKit
import Testing

@Suite("Signing keys rotated on a schedule")
struct SigningKeyScheduleTests {
    /// The keys as stored: how many, and the unretired ones.
    static func keys(_ database: FoyerDatabase) async throws -> (count: Int, unretired: [String]) {
        try await database.withConnection { sql in
            let rows = try await sql.raw("SELECT kid, retired_at FROM identity_signing_keys").all()
            let unretired = try rows.filter { try $0.decodeOptionalDate(column: "retired_at") == nil }.map {
                try $0.decode(column: "kid", as: String.self)
            }
            return (rows.count, unretired)
        }
    }

    @Test(
        "Two replicas' janitors on one database rotate exactly once when the newest key passes the interval, not before",
        arguments: TestEngine.allCases
    )
    func exactlyOnce(engine: TestEngine) async throws {
        let clock = TestClock()
        try await withTestDatabase(engine) { database in
            var configuration = testIdentityConfiguration(database: database.configuration, clock: clock)
            configuration.signingKeyRotationInterval = .seconds(90 * 86_400)
            try await withIdentity(database: database, configuration: configuration, clock: clock) { first in
                try await withIdentity(database: database, configuration: configuration, clock: clock) { second in
                    let original = try await Self.keys(database).unretired
                    #expect(original.count == 1)
                    func bothRunMaintenance() async throws {
                        async let one: Void = first.service.runMaintenance()
                        async let two: Void = second.service.runMaintenance()
                        _ = try await (one, two)
                    }
                    clock.advance(by: .seconds(89 * 86_400))
                    try await bothRunMaintenance()
                    #expect(try await Self.keys(database).unretired == original)

                    clock.advance(by: .seconds(2 * 86_400))
                    try await bothRunMaintenance()
                    let rotated = try await Self.keys(database)
                    #expect(rotated.count == 2 && rotated.unretired.count == 1 && rotated.unretired != original)
                    // Once the new key is active, both replicas sign with it (the other one reloaded in its round),
                    // and still publish the old one until its tokens have expired.
                    clock.advance(by: configuration.signingKeyActivationDelay)
                    for replica in [first, second] {
                        let token = try await replica.newGuest()
                        #expect(try JWT.decode(token.accessToken).keyID == rotated.unretired[0])
                        let published = try JWKSet(json: try await replica.service.jwksJSON()).keys.compactMap(\.kid)
                        #expect(Set(published) == Set(original + rotated.unretired))
                    }

                    try await bothRunMaintenance()
                    #expect(try await Self.keys(database).unretired == rotated.unretired)
                }
            }
        }
    }

    @Test("Without an interval (--signing-key-rotation-days 0) keys rotate only on request")
    func off() async throws {
        let clock = TestClock()
        try await withIdentity(.sqlite, clock: clock, configure: { $0.signingKeyRotationInterval = nil }) { identity in
            let original = try await Self.keys(identity.database).unretired
            clock.advance(by: .seconds(3650 * 86_400))
            try await identity.service.runMaintenance()
            #expect(try await Self.keys(identity.database).unretired == original)
        }
    }
}
