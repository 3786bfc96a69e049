import Foundation
import FoyerAPI
import FoyerStorage
import NIOCore
import SQLKit

extension DocumentStore {
    /// What `ud_put_ops` keeps of a `putOnce`: who wrote, the caller's digest of the request, and the result.
    struct PutRecord {
        var attempt: String
        var requestDigest: [UInt8]
        var result: PutDocumentResponse
    }

    /// `put`, once per (uid, op), only while the document is `request.base`. The op's row is inserted first (`ON
    /// CONFLICT DO NOTHING`), so a second call with the op, even a concurrent one, waits for the first to commit and
    /// then answers its result without writing, even if the document changed since; the same op with another request
    /// digest is `op-conflict`. A document that is not the base (another version, or one that came or went) is
    /// answered `found` with nothing written and the op's row taken back, as is a refused write (`version-mismatch`
    /// for the client's own expected version, `uid-deleted`, …) by rolling back: a retry is evaluated afresh.
    func putOnce(_ request: PutOnceRequest) async throws -> PutOnceResponse {
        try checkValueSize(request.value)
        let now = configuration.now()
        let answer = try await write { sql -> PutOnceResponse in
            try await lockUsers(sql, [request.uid], exclusive: false)
            let claimed = try await sql.raw(
                """
                INSERT INTO ud_put_ops (uid, op, attempt, request_digest, version, updated_at, recorded_at)
                VALUES (\(bind: request.uid), \(bind: request.op), \(bind: request.attempt),
                    \(SQLBytes(request.requestDigest)), 0, 0, \(SQLTimestamp(now)))
                ON CONFLICT (uid, op) DO NOTHING
                RETURNING op
                """
            ).first()
            guard claimed != nil else { return try await replay(sql, request) }
            try await checkWritable(sql, request.uid)
            guard let result = try await writeOnBase(sql, request, now: now) else {
                let found = try await base(sql, request)
                if let expected = request.expectedVersion, expected != found.version {
                    throw UserDataError.versionMismatch(current: Int64(found.version))
                }
                try await sql.raw(
                    "DELETE FROM ud_put_ops WHERE uid = \(bind: request.uid) AND op = \(bind: request.op)"
                ).run()
                return .found(found)
            }
            try await sql.raw(
                """
                UPDATE ud_put_ops SET version = \(bind: Int64(result.version)),
                    updated_at = \(bind: result.updatedAtMicroseconds)
                WHERE uid = \(bind: request.uid) AND op = \(bind: request.op)
                """
            ).run()
            return .written(result)
        }
        await maintainOccasionally()
        return answer
    }

    /// The write of `putOnce`, pinned to the base's version, if the document is the base; nil if it is not (the
    /// version pin also catches a write that lands between the read and this one).
    private func writeOnBase(
        _ sql: any SQLDatabase,
        _ request: PutOnceRequest,
        now: Date
    ) async throws -> PutDocumentResponse? {
        guard try await base(sql, request, lock: true) == request.base,
            request.expectedVersion == nil || request.expectedVersion == request.base.version
        else { return nil }
        do {
            return try await writeDocument(
                sql,
                uid: request.uid,
                collection: request.collection,
                key: request.key,
                value: request.value,
                expectedVersion: request.base.version,
                now: now
            )
        } catch let error as UserDataError where error.code == .versionMismatch {
            return nil
        }
    }

    /// The document of `request` as it stands, as a base (`absent` when there is no document); `lock` keeps it so
    /// until the transaction ends (PostgreSQL; SQLite's writers run one at a time).
    private func base(_ sql: any SQLDatabase, _ request: PutOnceRequest, lock: Bool = false) async throws -> PutBase {
        let forUpdate: SQLQueryString = lock && sql.engineKind == .postgres ? " FOR UPDATE" : ""
        guard
            let row = try await sql.raw(
                """
                SELECT version, body_size, updated_at FROM ud_documents
                WHERE uid = \(bind: request.uid) AND collection = \(bind: request.collection)
                    AND doc_key = \(bind: request.key)\(forUpdate)
                """
            ).first()
        else { return .absent }
        return PutBase(
            version: UInt64(max(0, try row.decode(column: "version", as: Int64.self))),
            size: UInt64(max(0, try row.decode(column: "body_size", as: Int64.self))),
            updatedAtMicroseconds: try row.decode(column: "updated_at", as: Int64.self)
        )
    }

    /// The answer to a `putOnce` whose op already wrote.
    private func replay(_ sql: any SQLDatabase, _ request: PutOnceRequest) async throws -> PutOnceResponse {
        guard let record = try await recordedPut(sql, uid: request.uid, op: request.op) else {
            // Pruned between the two statements: older than the retention; refuse rather than write again.
            throw UserDataError.opConflict("put op \(request.op) expired while it was being checked; use a new op")
        }
        guard record.requestDigest == request.requestDigest else {
            throw UserDataError.opConflict("put op \(request.op) was used for another write")
        }
        return record.attempt == request.attempt ? .written(record.result) : .replayed(record.result)
    }

    /// The op's earlier write, or else the document as it stands: what the gateway reads before it charges the
    /// quota for a `putOnce`. A uid that takes no writes is refused as `putOnce` would refuse it, before anything
    /// is charged.
    func lookupPut(_ request: LookupPutRequest) async throws -> LookupPutResponse {
        try await database.withConnection { sql in
            if let record = try await recordedPut(sql, uid: request.uid, op: request.op) {
                guard record.requestDigest == request.requestDigest else {
                    throw UserDataError.opConflict("put op \(request.op) was used for another write")
                }
                return LookupPutResponse(recorded: record.result, document: nil)
            }
            try await checkWritable(sql, request.uid)
            let row = try await sql.raw(
                """
                SELECT collection, doc_key, body, version, updated_at FROM ud_documents
                WHERE uid = \(bind: request.uid) AND collection = \(bind: request.collection)
                    AND doc_key = \(bind: request.key)
                """
            ).first()
            return LookupPutResponse(recorded: nil, document: try row.map(Self.document(from:)))
        }
    }

    /// The committed record of (uid, op), if any.
    private func recordedPut(_ sql: any SQLDatabase, uid: String, op: String) async throws -> PutRecord? {
        guard
            let row = try await sql.raw(
                """
                SELECT attempt, request_digest, version, updated_at FROM ud_put_ops
                WHERE uid = \(bind: uid) AND op = \(bind: op)
                """
            ).first()
        else { return nil }
        return PutRecord(
            attempt: try row.decode(column: "attempt", as: String.self),
            requestDigest: try row.decodeBytes(column: "request_digest"),
            result: PutDocumentResponse(
                version: UInt64(max(0, try row.decode(column: "version", as: Int64.self))),
                updatedAtMicroseconds: try row.decode(column: "updated_at", as: Int64.self)
            )
        )
    }
}
