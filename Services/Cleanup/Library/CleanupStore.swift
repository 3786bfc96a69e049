import Foundation
import FoyerAPI
import FoyerCrypto
import FoyerStorage
import FoyerWire
import NIOCore
import SQLKit

/// cleanup's own database: deletion records, claims on accounts being worked on, the pseudonym key and the last
/// sweep of each replica.
struct CleanupStore: Sendable {
    let database: FoyerDatabase

    func migrate() async throws {
        try await database.migrate(service: CleanupMigrations.service, migrations: CleanupMigrations.all)
    }

    /// The deployment's pseudonym key: the one in the database, or a new random one stored now. Replicas starting
    /// together agree: the first insert wins and everyone reads it back.
    func pseudonymKey(now: Date) async throws -> [UInt8] {
        try await database.transaction { sql in
            try await sql.raw(
                """
                INSERT INTO cleanup_keys (name, material, created_at)
                VALUES ('pseudonym', \(SQLBytes(SecureRandom.bytes(count: 32))), \(SQLTimestamp(now)))
                ON CONFLICT (name) DO NOTHING
                """
            ).run()
            guard let row = try await sql.raw("SELECT material FROM cleanup_keys WHERE name = 'pseudonym'").first()
            else {
                throw CleanupStoreError("the pseudonym key was not stored")
            }
            return try row.decodeBytes(column: "material")
        }
    }
}

extension CleanupStore {
    /// Keeps `report` as `replica`'s last sweep, replacing the one before.
    func saveSweep(_ report: SweepReport, replica: String) async throws {
        let bytes = Array(report.encoded().readableBytesView)
        try await database.transaction { sql in
            try await sql.raw(
                """
                INSERT INTO cleanup_sweeps (replica, report, finished_at)
                VALUES (\(bind: replica), \(SQLBytes(bytes)), \(bind: Int64(clamping: report.finishedAtMilliseconds)))
                ON CONFLICT (replica) DO UPDATE SET report = excluded.report, finished_at = excluded.finished_at
                """
            ).run()
        }
    }

    /// The newest sweep any replica finished, or nil before the first.
    func lastSweep() async throws -> SweepReport? {
        try await database.withConnection { sql in
            guard
                let row = try await sql.raw(
                    "SELECT report FROM cleanup_sweeps ORDER BY finished_at DESC, replica LIMIT 1"
                ).first()
            else { return nil }
            return try SweepReport(decoding: ByteBuffer(bytes: try row.decodeBytes(column: "report")))
        }
    }
}

/// Something in cleanup's database that should not be (never a peer's fault): answered `internal`.
struct CleanupStoreError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
