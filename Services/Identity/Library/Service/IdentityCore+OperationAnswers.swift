import Foundation
import FoyerAPI
import FoyerStorage
import SQLKit

/// The gateways' shared memory of finished operations: identity keeps what a gateway replica stores
/// (`rememberOperationAnswer`, or with the last step of a merge or deletion) so that every replica finds it
/// (`link` and `deleteAccount` answer it). The values are opaque here; identity only bounds them (the decoder caps
/// their sizes, the lifetime is at most a day) and prunes them once expired.
extension IdentityCore {
    /// `rememberOperationAnswer`.
    func rememberOperationAnswer(_ request: RememberOperationAnswerRequest) async throws {
        let now = self.now
        try await database.transaction { sql in try await Self.remember(sql, request, now: now) }
    }

    /// Stores the answer unless a live one is already stored under its id: the first answer of an operation stays,
    /// whichever replica stores it; an expired one is replaced.
    static func remember(_ sql: any SQLDatabase, _ request: RememberOperationAnswerRequest, now: Date) async throws {
        let expiresAt = now.addingTimeInterval(TimeInterval(request.lifetimeSeconds))
        try await sql.raw(
            """
            INSERT INTO identity_operation_answers (id, check_digest, sealed, expires_at)
            VALUES (\(SQLBytes(request.id)), \(SQLBytes(request.check)), \(SQLBytes(request.sealed)),
                \(SQLTimestamp(expiresAt)))
            ON CONFLICT (id) DO UPDATE SET check_digest = excluded.check_digest, sealed = excluded.sealed,
                expires_at = excluded.expires_at
            WHERE identity_operation_answers.expires_at <= \(SQLTimestamp(now))
            """
        ).run()
    }

    /// The live answer stored under `id`, if any.
    func rememberedAnswer(id: [UInt8]) async throws -> RememberedAnswer? {
        let now = self.now
        let row = try await database.withConnection { sql in
            try await sql.raw(
                """
                SELECT check_digest, sealed FROM identity_operation_answers
                WHERE id = \(SQLBytes(id)) AND expires_at > \(SQLTimestamp(now))
                """
            ).first()
        }
        guard let row else { return nil }
        return RememberedAnswer(
            check: try row.decodeBytes(column: "check_digest"),
            sealed: try row.decodeBytes(column: "sealed")
        )
    }
}
