import Foundation
import FoyerAPI
import FoyerCrypto
import FoyerStorage
import SQLKit

extension DocumentStore {
    /// Moves every document of `guest` to `account`, one transaction per batch, and returns the report.
    ///
    /// Idempotent under `op`: the op's row records the pair, the policy and the running totals, and each batch
    /// commits its moves together with the totals, so a retry after a crash goes on with the documents still
    /// under the guest and nothing is moved twice. Once the op is done, a retry answers the same report. A retry
    /// goes on under the policy the op was first claimed with, whatever policy it names: whoever finishes a merge
    /// (the client's retry, cleanup's recovery) gets its one report without knowing the policy. While
    /// and after the merge the guest takes no writes (`uid-merged`), so no write can land behind it.
    ///
    /// The op's records are pruned `mergeRecordRetention` after it finished. A retry after that claims the op
    /// afresh and finds nothing left under the guest (it moved, and the guest took no writes meanwhile), so it moves
    /// nothing: it answers an empty report rather than the first one, but never merges twice.
    func merge(from guest: String, to account: String, op: String, policy: MergePolicy) async throws -> MergeReport {
        guard guest != account else { throw UserDataError.mergeIntoSelf }
        while true {
            switch try await mergeBatch(from: guest, to: account, op: op, policy: policy) {
            case .done(let report):
                return report
            case .progressed:
                try configuration.failureInjection?.batchCommitted(.merge)
            }
        }
    }

    private enum MergeStep {
        case progressed
        case done(MergeReport)
    }

    /// The running totals of a merge op.
    private struct MergeTotals {
        /// The policy the op was claimed with.
        var policy: MergePolicy
        var done = false
        var moved: Int64 = 0
        var keptAccount: Int64 = 0
        var keptGuest: Int64 = 0
        var keptBoth: Int64 = 0
        var conflicts: Int64 { keptAccount + keptGuest + keptBoth }

        mutating func count(_ resolution: MergeReport.Resolution) {
            switch resolution {
            case .keptAccount: keptAccount += 1
            case .keptGuest: keptGuest += 1
            case .keptBoth: keptBoth += 1
            }
        }
    }

    /// A guest document of the current batch.
    private struct GuestDocument {
        var collection: String
        var key: String
        var size: Int64
        var updatedAt: Int64
    }

    private func mergeBatch(
        from guest: String,
        to account: String,
        op: String,
        policy: MergePolicy
    ) async throws
        -> MergeStep
    {
        let now = configuration.now()
        return try await write { sql in
            try await lockUsers(sql, [guest, account], exclusive: true)
            // Nothing moves into a deleted account (its documents would outlive its deletion), nor out of a deleted
            // guest; checked in every batch, so a deletion that starts during the merge stops it.
            try await checkNotDeleted(sql, account)
            try await checkNotDeleted(sql, guest)
            var totals = try await claim(sql, op: op, from: guest, to: account, policy: policy, now: now)
            if totals.done { return .done(try await report(sql, op: op, totals: totals)) }
            let batch = try await guestBatch(sql, guest: guest)
            guard !batch.isEmpty else {
                totals.done = true
                try await sql.raw(
                    "UPDATE ud_merge_ops SET done = \(bind: true), finished_at = \(SQLTimestamp(now)) WHERE op = \(bind: op)"
                ).run()
                // The guest takes no more writes, so its put records can answer no retry: they go with the merge.
                try await sql.raw("DELETE FROM ud_put_ops WHERE uid = \(bind: guest)").run()
                logger.info(
                    "merged documents",
                    metadata: [
                        "merge.op": "\(op)", "merge.moved": "\(totals.moved)", "merge.conflicts": "\(totals.conflicts)",
                    ]
                )
                return .done(try await report(sql, op: op, totals: totals))
            }
            let collections = Self.groupedByCollection(batch)
            // The account's clashing documents are read before the free ones move, so the move cannot create a clash
            // (no other writer of either uid runs meanwhile: both uids' locks are held, or SQLite's one writer).
            let clashes = try await conflictingAccountDocuments(sql, account: account, collections: collections)
            var added = MergeTotals(policy: totals.policy)
            added.moved = try await moveFree(sql, collections, except: clashes, from: guest, to: account)
            var sequence = totals.conflicts
            for document in batch {
                guard let accountTime = clashes[DocumentID(document.collection, document.key)] else { continue }
                let resolution = Self.resolution(
                    of: totals.policy,
                    guestTime: document.updatedAt,
                    accountTime: accountTime
                )
                let derivedKey = try await resolve(sql, document, resolution, guest: guest, account: account, now: now)
                try await sql.raw(
                    """
                    INSERT INTO ud_merge_conflicts (op, seq, collection, doc_key, resolution, derived_key)
                    VALUES (\(bind: op), \(bind: sequence), \(bind: document.collection), \(bind: document.key),
                        \(bind: Int64(resolution.rawValue)), \(bind: derivedKey))
                    """
                ).run()
                sequence += 1
                added.count(resolution)
            }
            try await add(added, to: op, sql)
            return .progressed
        }
    }

    /// Moves the batch's documents whose key the account does not hold; returns how many moved.
    private func moveFree(
        _ sql: any SQLDatabase,
        _ collections: [(String, [GuestDocument])],
        except clashes: [DocumentID: Int64],
        from guest: String,
        to account: String
    ) async throws -> Int64 {
        var moved: Int64 = 0
        for (collection, documents) in collections {
            let free = documents.filter { clashes[DocumentID(collection, $0.key)] == nil }.map(\.key)
            guard !free.isEmpty else { continue }
            let rows = try await sql.raw(
                """
                UPDATE ud_documents SET uid = \(bind: account)
                WHERE uid = \(bind: guest) AND collection = \(bind: collection) AND doc_key IN (\(binds: free))
                RETURNING doc_key
                """
            ).all()
            moved += Int64(rows.count)
        }
        return moved
    }

    private static func resolution(
        of policy: MergePolicy,
        guestTime: Int64,
        accountTime: Int64
    )
        -> MergeReport.Resolution
    {
        switch policy {
        case .keepAccount: .keptAccount
        case .keepGuest: .keptGuest
        case .keepNewest: guestTime > accountTime ? .keptGuest : .keptAccount
        case .keepBoth: .keptBoth
        }
    }

    /// Adds a batch's totals to the op's row, in the batch's transaction.
    private func add(_ added: MergeTotals, to op: String, _ sql: any SQLDatabase) async throws {
        try await sql.raw(
            """
            UPDATE ud_merge_ops SET moved = moved + \(bind: added.moved),
                conflicts = conflicts + \(bind: added.conflicts),
                kept_account = kept_account + \(bind: added.keptAccount),
                kept_guest = kept_guest + \(bind: added.keptGuest),
                kept_both = kept_both + \(bind: added.keptBoth)
            WHERE op = \(bind: op)
            """
        ).run()
    }

    /// Finds the op's row, or creates it after checking that neither uid was merged away. Throws `op-conflict`
    /// when the op id belongs to another pair of uids.
    private func claim(
        _ sql: any SQLDatabase,
        op: String,
        from guest: String,
        to account: String,
        policy: MergePolicy,
        now: Date
    ) async throws -> MergeTotals {
        if let totals = try await recordedTotals(sql, op: op, from: guest, to: account) {
            return totals
        }
        if try await sql.raw(
            "SELECT op FROM ud_merge_ops WHERE from_uid = \(bind: guest) AND to_uid <> \(bind: account) LIMIT 1"
        ).first() != nil {
            throw UserDataError.uidMerged("uid \(guest) was merged into another account")
        }
        if try await sql.raw("SELECT op FROM ud_merge_ops WHERE from_uid = \(bind: account) LIMIT 1").first() != nil {
            throw UserDataError.uidMerged("uid \(account) was merged into another account; it cannot take a merge")
        }
        let inserted = try await sql.raw(
            """
            INSERT INTO ud_merge_ops (op, from_uid, to_uid, policy, done, moved, conflicts, kept_account, kept_guest,
                kept_both, started_at)
            VALUES (\(bind: op), \(bind: guest), \(bind: account), \(bind: Int64(policy.rawValue)), \(bind: false),
                0, 0, 0, 0, 0, \(SQLTimestamp(now)))
            ON CONFLICT (op) DO NOTHING
            RETURNING op
            """
        ).first()
        if inserted == nil {
            // Another pair claimed this op id between the two statements.
            guard let totals = try await recordedTotals(sql, op: op, from: guest, to: account) else {
                throw UserDataError.opConflict("merge op \(op) is being used for another merge")
            }
            return totals
        }
        return MergeTotals(policy: policy)
    }

    private func recordedTotals(
        _ sql: any SQLDatabase,
        op: String,
        from guest: String,
        to account: String
    ) async throws -> MergeTotals? {
        guard
            let row = try await sql.raw(
                """
                SELECT from_uid, to_uid, policy, done, moved, kept_account, kept_guest, kept_both
                FROM ud_merge_ops WHERE op = \(bind: op)
                """
            ).first()
        else { return nil }
        guard try row.decode(column: "from_uid", as: String.self) == guest,
            try row.decode(column: "to_uid", as: String.self) == account,
            let policy = MergePolicy(rawValue: UInt8(clamping: try row.decode(column: "policy", as: Int64.self)))
        else {
            throw UserDataError.opConflict("merge op \(op) was used for another pair of uids")
        }
        return MergeTotals(
            policy: policy,
            done: try row.decode(column: "done", as: Bool.self),
            moved: try row.decode(column: "moved", as: Int64.self),
            keptAccount: try row.decode(column: "kept_account", as: Int64.self),
            keptGuest: try row.decode(column: "kept_guest", as: Int64.self),
            keptBoth: try row.decode(column: "kept_both", as: Int64.self)
        )
    }

    private func guestBatch(_ sql: any SQLDatabase, guest: String) async throws -> [GuestDocument] {
        try await sql.raw(
            """
            SELECT collection, doc_key, body_size, updated_at FROM ud_documents WHERE uid = \(bind: guest)
            ORDER BY collection, doc_key LIMIT \(literal: configuration.mergeBatchSize)
            """
        ).all().map { row in
            GuestDocument(
                collection: try row.decode(column: "collection", as: String.self),
                key: try row.decode(column: "doc_key", as: String.self),
                size: try row.decode(column: "body_size", as: Int64.self),
                updatedAt: try row.decode(column: "updated_at", as: Int64.self)
            )
        }
    }

    private struct DocumentID: Hashable {
        var collection: String
        var key: String
        init(_ collection: String, _ key: String) {
            self.collection = collection
            self.key = key
        }
    }

    /// The batch's documents by collection, collections in the batch's (bytewise) order.
    private static func groupedByCollection(_ batch: [GuestDocument]) -> [(String, [GuestDocument])] {
        var groups: [(String, [GuestDocument])] = []
        for document in batch {
            if groups.last?.0 == document.collection {
                groups[groups.count - 1].1.append(document)
            } else {
                groups.append((document.collection, [document]))
            }
        }
        return groups
    }

    /// The account's documents that have the (collection, key) of a guest document of the batch, with their update
    /// times. Probes the primary key with explicit keys, so the cost follows the batch, not the account's size.
    private func conflictingAccountDocuments(
        _ sql: any SQLDatabase,
        account: String,
        collections: [(String, [GuestDocument])]
    ) async throws -> [DocumentID: Int64] {
        var times: [DocumentID: Int64] = [:]
        for (collection, documents) in collections {
            let rows = try await sql.raw(
                """
                SELECT doc_key, updated_at FROM ud_documents
                WHERE uid = \(bind: account) AND collection = \(bind: collection)
                    AND doc_key IN (\(binds: documents.map(\.key)))
                """
            ).all()
            for row in rows {
                let id = DocumentID(collection, try row.decode(column: "doc_key", as: String.self))
                times[id] = try row.decode(column: "updated_at", as: Int64.self)
            }
        }
        return times
    }

    /// Applies one conflict's resolution; returns the derived key for `keptBoth`.
    private func resolve(
        _ sql: any SQLDatabase,
        _ document: GuestDocument,
        _ resolution: MergeReport.Resolution,
        guest: String,
        account: String,
        now: Date
    ) async throws -> String? {
        let guestRow: SQLQueryString =
            "uid = \(bind: guest) AND collection = \(bind: document.collection) AND doc_key = \(bind: document.key)"
        switch resolution {
        case .keptAccount:
            try await sql.raw("DELETE FROM ud_documents WHERE \(guestRow)").run()
            return nil
        case .keptGuest:
            try await sql.raw(
                """
                UPDATE ud_documents SET
                    body = (SELECT g.body FROM ud_documents g WHERE g.uid = \(bind: guest)
                        AND g.collection = \(bind: document.collection) AND g.doc_key = \(bind: document.key)),
                    body_size = \(bind: document.size), version = version + 1, updated_at = \(SQLTimestamp(now))
                WHERE uid = \(bind: account) AND collection = \(bind: document.collection) AND doc_key = \(bind: document.key)
                """
            ).run()
            try await sql.raw("DELETE FROM ud_documents WHERE \(guestRow)").run()
            return nil
        case .keptBoth:
            var attempt = 0
            var derived = Self.derivedKey(document.key, collection: document.collection, guest: guest, attempt: attempt)
            while try await currentVersion(sql, uid: account, collection: document.collection, key: derived) != 0 {
                attempt += 1
                derived = Self.derivedKey(document.key, collection: document.collection, guest: guest, attempt: attempt)
            }
            try await sql.raw(
                "UPDATE ud_documents SET uid = \(bind: account), doc_key = \(bind: derived) WHERE \(guestRow)"
            ).run()
            return derived
        }
    }

    /// `<key>~guest-<8 hex digits of SHA-256(guest, collection, key, attempt)>`, the key cut at a character
    /// boundary so the whole stays within 256 bytes. Deterministic, so a retried batch derives the same key.
    static func derivedKey(_ key: String, collection: String, guest: String, attempt: Int) -> String {
        let digest = SHA256.hash(Array("\(guest)\u{0}\(collection)\u{0}\(key)\u{0}\(attempt)".utf8))
        let suffix =
            "~guest-"
            + digest.prefix(4).map { byte in
                let hex = String(byte, radix: 16)
                return hex.count == 1 ? "0" + hex : hex
            }.joined()
        var prefix = Substring(key)
        while prefix.utf8.count + suffix.utf8.count > UserDataLimits.keyByteCountMax { prefix.removeLast() }
        return prefix + suffix
    }

    /// The report of an op from its totals and its first listed conflicts.
    private func report(_ sql: any SQLDatabase, op: String, totals: MergeTotals) async throws -> MergeReport {
        let rows = try await sql.raw(
            """
            SELECT collection, doc_key, resolution, derived_key FROM ud_merge_conflicts WHERE op = \(bind: op)
            ORDER BY seq LIMIT \(literal: UserDataLimits.listedConflictsMax)
            """
        ).all()
        let listed = try rows.map { row in
            MergeReport.Conflict(
                collection: try row.decode(column: "collection", as: String.self),
                key: try row.decode(column: "doc_key", as: String.self),
                resolution: MergeReport.Resolution(
                    rawValue: UInt8(try row.decode(column: "resolution", as: Int64.self))
                )
                    ?? .keptAccount,
                derivedKey: try row.decodeNil(column: "derived_key")
                    ? nil : try row.decode(column: "derived_key", as: String.self)
            )
        }
        return MergeReport(
            moved: UInt64(totals.moved),
            conflicts: UInt64(totals.conflicts),
            keptAccount: UInt64(totals.keptAccount),
            keptGuest: UInt64(totals.keptGuest),
            keptBoth: UInt64(totals.keptBoth),
            listedConflicts: listed
        )
    }
}
