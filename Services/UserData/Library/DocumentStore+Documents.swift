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

    /// Deletes every document of `uid`, a bounded batch per transaction, and returns how many this call deleted.
    func deleteAll(uid: String) async throws -> DeleteAllDocumentsResponse {
        try await deleteAll(uids: [uid])[0]
    }

    /// Deletes every document of each of `uids`, at most `deleteBatchSize` documents and `deleteBatchByteCount`
    /// value bytes per transaction across them (a batch of guests with a few documents each costs one commit), and answers how many each lost, in the order of `uids`
    /// (a uid listed twice is answered once, the second time with 0). Each transaction holds the uids' exclusive
    /// locks, so no write of theirs interleaves with one.
    ///
    /// The first transaction records a tombstone per uid (`ud_deleted_uids`) before it deletes anything: from its
    /// commit on, every write to the uids is refused (`uid-deleted`), so a write racing the deletion either commits
    /// before a batch (which then deletes it) or is refused; none lands behind the last batch. The tombstones last
    /// `deletionTombstoneLifetime` after the latest deleteAll, then `prune` removes them.
    ///
    /// A transaction deletes set-wise (``deleteDocuments(_:of:within:)``): a statement per transaction, not a row
    /// sent back per document. Each transaction commits what it deleted, so a crash loses nothing and the retry
    /// deletes the rest and answers for what it deleted itself. With the last documents go the records that name the
    /// uids: the merges they took part in (op rows and conflict lists) and their put records.
    func deleteAll(uids: [String]) async throws -> [DeleteAllDocumentsResponse] {
        let budget = DeletionBudget(documents: configuration.deleteBatchSize, bytes: configuration.deleteBatchByteCount)
        let now = configuration.now()
        var remaining = Array(Set(uids)).sorted()
        var deleted: [String: UInt64] = [:]
        var first = true
        while true {
            let pass = try await write { sql in
                try await lockUsers(sql, uids, exclusive: true)
                if first { try await recordTombstones(sql, uids: uids, now: now) }
                let pass = try await deleteDocuments(sql, of: remaining, within: budget)
                if pass.remaining.isEmpty { try await deleteRecords(sql, of: uids, now: now) }
                return pass
            }
            first = false
            for (uid, count) in pass.deleted { deleted[uid, default: 0] += UInt64(count) }
            if !pass.deleted.isEmpty { try configuration.failureInjection?.batchCommitted(.deleteAll) }
            if pass.remaining.isEmpty { break }
            remaining = pass.remaining
        }
        return uids.map { uid in
            let count = deleted.removeValue(forKey: uid) ?? 0
            if count > 0 {
                logger.debug("deleted documents", metadata: ["user.uid": "\(uid)", "documents": "\(count)"])
            }
            return DeleteAllDocumentsResponse(deleted: count)
        }
    }

    /// What one transaction of ``deleteAll(uids:)`` did: documents deleted per uid (only uids that lost some), and
    /// the uids that still have documents, in order.
    struct DeletionPass: Sendable {
        var deleted: [String: Int] = [:]
        var remaining: [String] = []
    }

    /// How much one transaction of ``deleteAll(uids:)`` may delete.
    struct DeletionBudget: Sendable {
        var documents: Int
        var bytes: Int
    }

    /// Deletes what `budget` allows of the documents of `uids` (sorted), uid by uid in order, on the caller's
    /// transaction (which holds the uids' exclusive locks, so the counts it reads are the documents it deletes): one
    /// count, one `DELETE … WHERE uid IN (…)` for the uids that fit whole, and one for the head of the next, in key
    /// order, as far as both budgets reach (at least one document when it is the transaction's first).
    private func deleteDocuments(
        _ sql: any SQLDatabase,
        of uids: [String],
        within budget: DeletionBudget
    ) async throws
        -> DeletionPass
    {
        let rows = try await sql.raw(
            """
            SELECT uid, COUNT(*) AS documents, CAST(SUM(body_size) AS BIGINT) AS value_bytes
            FROM ud_documents WHERE uid IN (\(binds: uids)) GROUP BY uid
            """
        ).all()
        var sizes: [String: (documents: Int, bytes: Int)] = [:]
        for row in rows {
            sizes[try row.decode(column: "uid", as: String.self)] = (
                try row.decode(column: "documents", as: Int.self), try row.decode(column: "value_bytes", as: Int.self)
            )
        }
        var pass = DeletionPass()
        var whole: [String] = []
        var left = budget
        for uid in uids {
            guard let size = sizes[uid] else { continue }
            guard pass.remaining.isEmpty, size.documents <= left.documents, size.bytes <= left.bytes else {
                pass.remaining.append(uid)
                continue
            }
            whole.append(uid)
            pass.deleted[uid] = size.documents
            left.documents -= size.documents
            left.bytes -= size.bytes
        }
        if !whole.isEmpty {
            try await sql.raw("DELETE FROM ud_documents WHERE uid IN (\(binds: whole))").run()
        }
        if left.documents > 0, let next = pass.remaining.first {
            // The head of `next` in key order, as many documents as both budgets hold; the first document always,
            // when nothing was deleted before it, so that every transaction makes progress.
            let first: SQLQueryString = whole.isEmpty ? " OR running = body_size" : ""
            let count = try await sql.raw(
                """
                DELETE FROM ud_documents WHERE uid = \(bind: next) AND (collection, doc_key) IN (
                    SELECT collection, doc_key FROM (
                        SELECT collection, doc_key, body_size,
                            SUM(body_size) OVER (ORDER BY collection, doc_key) AS running
                        FROM ud_documents WHERE uid = \(bind: next) ORDER BY collection, doc_key
                        LIMIT \(literal: left.documents)) AS head
                    WHERE running <= \(literal: left.bytes)\(first))
                """
            ).runCountingChangedRows()
            if count > 0 { pass.deleted[next] = count }
        }
        return pass
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
