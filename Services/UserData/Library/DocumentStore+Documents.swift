import Foundation
import FoyerAPI
import FoyerStorage
import NIOCore
import SQLKit

extension DocumentStore {
    /// Writes a document: unconditionally (upsert), create-only (`expectedVersion` 0), or only at a version.
    func put(
        uid: String,
        collection: String,
        key: String,
        value: ByteBuffer,
        expectedVersion: UInt64?
    ) async throws -> PutDocumentResponse {
        try checkValueSize(value)
        let now = configuration.now()
        return try await write { sql in
            try await lockUsers(sql, [uid], exclusive: false)
            try await checkWritable(sql, uid)
            return try await writeDocument(
                sql,
                uid: uid,
                collection: collection,
                key: key,
                value: value,
                expectedVersion: expectedVersion,
                now: now
            )
        }
    }

    /// Refuses a value over the configured cap (`value-too-large`).
    func checkValueSize(_ value: ByteBuffer) throws {
        guard value.readableBytes <= configuration.valueByteCountMax else {
            throw UserDataError.valueTooLarge(size: value.readableBytes, limit: configuration.valueByteCountMax)
        }
    }

    /// The write of `put`, on the caller's transaction (which holds the uid's lock and has checked it takes writes).
    func writeDocument(
        _ sql: any SQLDatabase,
        uid: String,
        collection: String,
        key: String,
        value: ByteBuffer,
        expectedVersion: UInt64?,
        now: Date
    ) async throws -> PutDocumentResponse {
        let body = SQLBytes(Array(value.readableBytesView))
        let size = Int64(value.readableBytes)
        let version: Int64?
        switch expectedVersion {
        case nil:
            version = try await sql.raw(
                """
                INSERT INTO ud_documents (uid, collection, doc_key, body, body_size, version, updated_at)
                VALUES (\(bind: uid), \(bind: collection), \(bind: key), \(body), \(bind: size), 1, \(SQLTimestamp(now)))
                ON CONFLICT (uid, collection, doc_key) DO UPDATE SET
                    body = excluded.body, body_size = excluded.body_size,
                    version = ud_documents.version + 1, updated_at = excluded.updated_at
                RETURNING version
                """
            ).first(decodingColumn: "version", as: Int64.self)
        case 0?:
            version = try await sql.raw(
                """
                INSERT INTO ud_documents (uid, collection, doc_key, body, body_size, version, updated_at)
                VALUES (\(bind: uid), \(bind: collection), \(bind: key), \(body), \(bind: size), 1, \(SQLTimestamp(now)))
                ON CONFLICT (uid, collection, doc_key) DO NOTHING
                RETURNING version
                """
            ).first(decodingColumn: "version", as: Int64.self)
        case let expected?:
            version = try await sql.raw(
                """
                UPDATE ud_documents SET body = \(body), body_size = \(bind: size), version = version + 1,
                    updated_at = \(SQLTimestamp(now))
                WHERE uid = \(bind: uid) AND collection = \(bind: collection) AND doc_key = \(bind: key)
                    AND version = \(bind: Int64(exactly: expected) ?? -1)
                RETURNING version
                """
            ).first(decodingColumn: "version", as: Int64.self)
        }
        guard let version else {
            throw UserDataError.versionMismatch(
                current: try await currentVersion(sql, uid: uid, collection: collection, key: key)
            )
        }
        return PutDocumentResponse(version: UInt64(version), updatedAtMicroseconds: now.databaseMicroseconds)
    }

    func get(uid: String, collection: String, key: String) async throws -> GetDocumentResponse {
        try await database.withConnection { sql in
            let row = try await sql.raw(
                """
                SELECT collection, doc_key, body, version, updated_at FROM ud_documents
                WHERE uid = \(bind: uid) AND collection = \(bind: collection) AND doc_key = \(bind: key)
                """
            ).first()
            return GetDocumentResponse(document: try row.map(Self.document(from:)))
        }
    }

    /// Deletes a document, unconditionally or only at `expectedVersion` (a missing document then mismatches
    /// with current version 0).
    func delete(
        uid: String,
        collection: String,
        key: String,
        expectedVersion: UInt64?
    ) async throws
        -> DeleteDocumentResponse
    {
        try await write { sql in
            try await lockUsers(sql, [uid], exclusive: false)
            try await checkWritable(sql, uid)
            let versionCondition: SQLQueryString =
                expectedVersion.map { " AND version = \(bind: Int64(exactly: $0) ?? -1)" } ?? ""
            let deleted = try await sql.raw(
                """
                DELETE FROM ud_documents
                WHERE uid = \(bind: uid) AND collection = \(bind: collection) AND doc_key = \(bind: key)\(versionCondition)
                RETURNING version
                """
            ).first()
            if deleted == nil, expectedVersion != nil {
                throw UserDataError.versionMismatch(
                    current: try await currentVersion(sql, uid: uid, collection: collection, key: key)
                )
            }
            return DeleteDocumentResponse(deleted: deleted != nil)
        }
    }

    func count(uid: String, collection: String?) async throws -> CountDocumentsResponse {
        try await database.withConnection { sql in
            let collectionCondition: SQLQueryString = collection.map { " AND collection = \(bind: $0)" } ?? ""
            let row = try await sql.raw(
                """
                SELECT COUNT(*) AS documents, CAST(COALESCE(SUM(body_size), 0) AS BIGINT) AS value_bytes
                FROM ud_documents WHERE uid = \(bind: uid)\(collectionCondition)
                """
            ).first()
            let documents = try row?.decode(column: "documents", as: Int64.self) ?? 0
            let bytes = try row?.decode(column: "value_bytes", as: Int64.self) ?? 0
            return CountDocumentsResponse(documents: UInt64(max(0, documents)), valueBytes: UInt64(max(0, bytes)))
        }
    }

    /// Deletes every document of `uid`, `deleteBatchSize` per transaction, and returns how many this call
    /// deleted.
    func deleteAll(uid: String) async throws -> DeleteAllDocumentsResponse {
        try await deleteAll(uids: [uid])[0]
    }

    /// Deletes every document of each of `uids`, `deleteBatchSize` per transaction across them (a batch of guests
    /// with a few documents each costs one commit), and answers how many each lost, in the order of `uids`. Each
    /// transaction holds the uids' exclusive locks, so no write of theirs interleaves with one.
    ///
    /// The first transaction records a tombstone per uid (`ud_deleted_uids`) before it deletes anything: from its
    /// commit on, every write to the uids is refused (`uid-deleted`), so a write racing the deletion either commits
    /// before a batch (which then deletes it) or is refused; none lands behind the last batch. The tombstones last
    /// `deletionTombstoneLifetime` after the latest deleteAll, then `prune` removes them.
    ///
    /// With the last documents go the records that name the uids: the merges they took part in (op rows and
    /// conflict lists) and their put records.
    func deleteAll(uids: [String]) async throws -> [DeleteAllDocumentsResponse] {
        let batch = configuration.deleteBatchSize
        let now = configuration.now()
        var deleted: [String: UInt64] = [:]
        var first = true
        while true {
            let owners = try await write { sql in
                try await lockUsers(sql, uids, exclusive: true)
                if first { try await recordTombstones(sql, uids: uids, now: now) }
                let owners = try await sql.raw(
                    """
                    DELETE FROM ud_documents WHERE (uid, collection, doc_key) IN (
                        SELECT uid, collection, doc_key FROM ud_documents WHERE uid IN (\(binds: uids))
                        ORDER BY uid, collection, doc_key LIMIT \(literal: batch))
                    RETURNING uid
                    """
                ).all(decodingColumn: "uid", as: String.self)
                if owners.count < batch { try await deleteRecords(sql, of: uids, now: now) }
                return owners
            }
            first = false
            for owner in owners { deleted[owner, default: 0] += 1 }
            if !owners.isEmpty { try configuration.failureInjection?.batchCommitted(.deleteAll) }
            if owners.count < batch { break }
        }
        return uids.map { uid in
            let count = deleted.removeValue(forKey: uid) ?? 0
            if count > 0 {
                logger.debug("deleted documents", metadata: ["user.uid": "\(uid)", "documents": "\(count)"])
            }
            return DeleteAllDocumentsResponse(deleted: count)
        }
    }

    /// Records (or renews) the tombstones of `uids`.
    private func recordTombstones(_ sql: any SQLDatabase, uids: [String], now: Date) async throws {
        let rows = SQLList(
            Array(Set(uids)).sorted().map { uid in "(\(bind: uid), \(SQLTimestamp(now)))" as SQLQueryString }
        )
        try await sql.raw(
            """
            INSERT INTO ud_deleted_uids (uid, deleted_at) VALUES \(rows)
            ON CONFLICT (uid) DO UPDATE SET deleted_at = excluded.deleted_at
            """
        ).run()
    }

    /// Deletes the merge records (op rows and conflict lists) of every merge `uids` took part in, and their put
    /// records. The guests merged into them lose the op rows that refused their writes, so they get tombstones
    /// too.
    private func deleteRecords(_ sql: any SQLDatabase, of uids: [String], now: Date) async throws {
        try await sql.raw(
            """
            INSERT INTO ud_deleted_uids (uid, deleted_at)
            SELECT DISTINCT from_uid, \(SQLTimestamp(now)) FROM ud_merge_ops WHERE to_uid IN (\(binds: uids))
            ON CONFLICT (uid) DO UPDATE SET deleted_at = excluded.deleted_at
            """
        ).run()
        try await sql.raw(
            """
            DELETE FROM ud_merge_conflicts WHERE op IN (
                SELECT op FROM ud_merge_ops WHERE from_uid IN (\(binds: uids)) OR to_uid IN (\(binds: uids)))
            """
        ).run()
        try await sql.raw(
            "DELETE FROM ud_merge_ops WHERE from_uid IN (\(binds: uids)) OR to_uid IN (\(binds: uids))"
        ).run()
        try await sql.raw("DELETE FROM ud_put_ops WHERE uid IN (\(binds: uids))").run()
    }
}
