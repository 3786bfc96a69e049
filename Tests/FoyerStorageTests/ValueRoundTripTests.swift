import Foundation
import FoyerStorage
import FoyerTestSupport
import SQLKit
import Testing

@Suite("Binary values and dates")
struct ValueRoundTripTests {
    static let blobsMigration = Migration(version: 1, name: "blobs") { engine in
        [
            "CREATE TABLE blobs (id BIGINT PRIMARY KEY, data \(engine.binaryColumnType) NOT NULL, maybe \(engine.binaryColumnType))"
        ]
    }

    static var binarySamples: [(name: String, bytes: [UInt8])] {
        var generator = SplitMix64(seed: 0xF0_7E12)
        let large = (0..<(256 * 1024)).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
        return [
            ("all 256 byte values", (0...255).map { UInt8($0) }),
            ("empty", []),
            ("one zero byte", [0]),
            ("zeros around text", [0, 0, 65, 0, 66, 0, 0]),
            ("invalid UTF-8", [0xC3, 0x28, 0xFF, 0xFE, 0x80]),
            ("256 KiB pseudo-random", large),
        ]
    }

    @Test("binary values round-trip exactly, including zero bytes and the empty value", arguments: TestEngine.allCases)
    func binaryValuesRoundTrip(engine: TestEngine) async throws {
        try await withTestDatabase(engine) { db in
            try await db.migrate(service: "test", migrations: [Self.blobsMigration])
            let samples = Self.binarySamples
            try await db.transaction { sql in
                for (id, sample) in samples.enumerated() {
                    try await sql.raw("INSERT INTO blobs (id, data) VALUES (\(bind: id), \(SQLBytes(sample.bytes)))")
                        .run()
                }
            }
            try await db.withConnection { sql in
                for (id, sample) in samples.enumerated() {
                    let row = try #require(
                        try await sql.raw(
                            """
                            SELECT data, length(data) AS size, data IS NULL AS is_null, maybe FROM blobs WHERE id = \(bind: id)
                            """
                        ).first()
                    )
                    let bytes = try row.decodeBytes(column: "data")
                    #expect(bytes == sample.bytes, "\(sample.name)")
                    #expect(try row.decode(column: "size", as: Int.self) == sample.bytes.count, "\(sample.name)")
                    #expect(
                        try row.decode(column: "is_null", as: Bool.self) == false,
                        "\(sample.name) must not be NULL"
                    )
                    #expect(try row.decodeOptionalBytes(column: "maybe") == nil)
                }
                // Binary values compare and match by content in SQL too.
                let matched = try await sql.raw("SELECT id FROM blobs WHERE data = \(SQLBytes(samples[0].bytes))")
                    .all(decodingColumn: "id", as: Int.self)
                #expect(matched == [0])
                let empty = try await sql.raw("SELECT id FROM blobs WHERE data = \(SQLBytes([]))").all(
                    decodingColumn: "id",
                    as: Int.self
                )
                #expect(empty == [1])
            }
            // Foundation Data binds the same way.
            try await db.transaction { sql in
                try await sql.raw("UPDATE blobs SET maybe = \(SQLBytes(Data([1, 0, 2]))) WHERE id = 0").run()
            }
            let maybe = try await db.withConnection { sql in
                try #require(try await sql.raw("SELECT maybe FROM blobs WHERE id = 0").first()).decodeOptionalBytes(
                    column: "maybe"
                )
            }
            #expect(maybe == [1, 0, 2])
        }
    }

    static let dateSamples: [Date] = [
        Date(),
        Date(timeIntervalSince1970: 0),
        Date(timeIntervalSince1970: 1_700_000_000.123456),
        Date(timeIntervalSince1970: 1_700_000_000.1234567),  // finer than a microsecond: rounded
        Date(timeIntervalSince1970: -1_234_567_890.000001),  // before 1970
        Date(timeIntervalSince1970: 32_503_680_000),  // year 3000
        Date.distantPast,
        Date.distantFuture,
    ]

    @Test("dates round-trip at microsecond precision and keep their order", arguments: TestEngine.allCases)
    func datesRoundTrip(engine: TestEngine) async throws {
        try await withTestDatabase(engine) { db in
            try await db.migrate(
                service: "test",
                migrations: [
                    Migration(
                        version: 1,
                        name: "events",
                        statements: ["CREATE TABLE events (id BIGINT PRIMARY KEY, at BIGINT NOT NULL, until BIGINT)"]
                    )
                ]
            )
            try await db.transaction { sql in
                for (id, date) in Self.dateSamples.enumerated() {
                    try await sql.raw("INSERT INTO events (id, at) VALUES (\(bind: id), \(SQLTimestamp(date)))").run()
                }
            }
            let rows = try await db.withConnection { sql in
                try await sql.raw("SELECT id, at, until FROM events ORDER BY at").all()
            }
            let expectedOrder = Self.dateSamples.indices.sorted { Self.dateSamples[$0] < Self.dateSamples[$1] }
            #expect(try rows.map { try $0.decode(column: "id", as: Int.self) } == expectedOrder)
            for row in rows {
                let original = Self.dateSamples[try row.decode(column: "id", as: Int.self)]
                let stored = try row.decodeDate(column: "at")
                #expect(stored.databaseMicroseconds == original.databaseMicroseconds)
                #expect(stored == Date(databaseMicroseconds: original.databaseMicroseconds))
                #expect(try row.decode(column: "at", as: Int64.self) == original.databaseMicroseconds)
                if abs(original.timeIntervalSince1970) < 1e10 {
                    // Within half a microsecond (plus Double noise) of the original.
                    #expect(abs(stored.timeIntervalSince(original)) <= 0.000_000_6)
                }
                #expect(try row.decodeOptionalDate(column: "until") == nil)
            }
        }
    }

    @Test("the microsecond convention is exact for integers and rounds to the nearest microsecond")
    func microsecondConvention() {
        for micros: Int64 in [0, 1, -1, 1_700_000_000_123_456, -62_135_596_800_000_000, 4_102_444_800_000_000] {
            #expect(Date(databaseMicroseconds: micros).databaseMicroseconds == micros)
        }
        #expect(Date(timeIntervalSince1970: 1.0000004).databaseMicroseconds == 1_000_000)
        #expect(Date(timeIntervalSince1970: 1.0000006).databaseMicroseconds == 1_000_001)
        #expect(Date(timeIntervalSince1970: 1_700_000_000.5).databaseMicroseconds == 1_700_000_000_500_000)
    }
}
