import Foundation
import FoyerAPI
import FoyerStorage
import FoyerWire
import NIOCore
import SQLKit

extension GuestQuotaStore {
    /// Opens the account; a second open of the same uid changes nothing and answers `created: false` with the
    /// account's current plan. Opening a guest takes a place under the cap in the same transaction; a guest refused
    /// for the cap is counted as a `signup` denial for `stats`.
    func openAccount(uid: String, planName: String) async throws -> OpenQuotaAccountResponse {
        _ = try plan(named: planName)
        let now = configuration.now()
        let answer = try await countingDenials(as: Self.signupDenialKind, [.guestCapReached]) {
            try await openOnce(uid: uid, planName: planName, now: now)
        }
        try configuration.failureInjection?.fire(.afterOpenAccount)
        return answer
    }

    /// The transaction of `openAccount`.
    private func openOnce(uid: String, planName: String, now: Date) async throws -> OpenQuotaAccountResponse {
        try await write { sql -> OpenQuotaAccountResponse in
            guard try await insertAccount(sql, uid: uid, planName: planName, capped: true, now: now) else {
                let current = try await sql.raw("SELECT plan FROM gq_accounts WHERE uid = \(bind: uid)")
                    .first(decodingColumn: "plan", as: String.self)
                return OpenQuotaAccountResponse(created: false, plan: current ?? planName)
            }
            return OpenQuotaAccountResponse(created: true, plan: planName)
        }
    }

    /// Inserts the account unless the uid has one (then answers false). An account on the guest plan takes a place
    /// under the cap: `guest-cap-reached` when `capped` and none is left (the transaction then creates nothing).
    private func insertAccount(
        _ sql: any SQLDatabase,
        uid: String,
        planName: String,
        capped: Bool,
        now: Date
    ) async throws -> Bool {
        let inserted = try await sql.raw(
            """
            INSERT INTO gq_accounts (uid, plan, created_at, updated_at)
            VALUES (\(bind: uid), \(bind: planName), \(SQLTimestamp(now)), \(SQLTimestamp(now)))
            ON CONFLICT (uid) DO NOTHING
            RETURNING uid
            """
        ).first()
        guard inserted != nil else { return false }
        guard planName == configuration.guestPlan else { return true }
        guard capped else {
            try await adjustCensus(sql, by: 1)
            return true
        }
        let admitted = try await sql.raw(
            """
            UPDATE gq_guest_census SET live_guests = live_guests + 1
            WHERE id = 1 AND live_guests < \(bind: Int64(configuration.liveGuestsMax))
            RETURNING live_guests
            """
        ).first()
        if admitted == nil { throw try await guestCapReached(sql) }
        return true
    }

    /// The account's plan, opening it on the guest plan if the uid has none: a guest's account opens at its first
    /// consume rather than at sign-in, taking its place under the cap then (`guest-cap-reached` at the cap).
    func openedAccount(
        _ sql: any SQLDatabase,
        uid: String,
        now: Date
    ) async throws -> (name: String, plan: Plan, opened: Bool) {
        if let account = try await storedPlan(sql, uid: uid) { return (account.name, account.plan, false) }
        let opened = try await insertAccount(sql, uid: uid, planName: configuration.guestPlan, capped: true, now: now)
        let account = try await accountPlan(sql, uid: uid)
        return (account.name, account.plan, opened)
    }

    func guestCapReached(_ sql: any SQLDatabase) async throws -> GuestQuotaError {
        let retryAfter = configuration.guestCapRetryAfter.components
        let milliseconds = retryAfter.seconds * 1000 + retryAfter.attoseconds / 1_000_000_000_000_000
        return .guestCapReached(
            live: try await liveGuests(sql),
            cap: configuration.liveGuestsMax,
            retryAfterMilliseconds: UInt32(clamping: milliseconds)
        )
    }

    /// Moves the account to `planName`, keeping the live-guest count exact: leaving the guest plan frees a place,
    /// joining it takes one (without the cap check: a downgrade is never refused). A uid without an account is a
    /// guest that has used nothing yet: its account is opened on `planName`.
    func changePlan(uid: String, planName: String) async throws -> ChangePlanResponse {
        _ = try plan(named: planName)
        let now = configuration.now()
        let answer = try await write { sql -> ChangePlanResponse in
            let select: SQLQueryString = "SELECT plan FROM gq_accounts WHERE uid = \(bind: uid)\(forUpdate(sql))"
            var stored = try await sql.raw(select).first(decodingColumn: "plan", as: String.self)
            if stored == nil {
                if try await insertAccount(sql, uid: uid, planName: planName, capped: false, now: now) {
                    return ChangePlanResponse(previousPlan: configuration.guestPlan, plan: planName)
                }
                stored = try await sql.raw(select).first(decodingColumn: "plan", as: String.self)
            }
            guard let current = stored else { throw GuestQuotaError.accountNotFound(uid) }
            guard current != planName else { return ChangePlanResponse(previousPlan: current, plan: current) }
            try await sql.raw(
                "UPDATE gq_accounts SET plan = \(bind: planName), updated_at = \(SQLTimestamp(now)) WHERE uid = \(bind: uid)"
            ).run()
            if current == configuration.guestPlan { try await adjustCensus(sql, by: -1) }
            if planName == configuration.guestPlan { try await adjustCensus(sql, by: 1) }
            return ChangePlanResponse(previousPlan: current, plan: planName)
        }
        try configuration.failureInjection?.fire(.afterChangePlan)
        return answer
    }

    /// Every counter of the account's plan and every feature any plan names (a uid without an account: the guest
    /// plan, nothing used).
    func usage(uid: String) async throws -> QuotaUsageResponse {
        try await database.withConnection { sql in
            let account = try await planOrGuest(sql, uid: uid)
            var used: [String: Int64] = [:]
            for row in try await sql.raw("SELECT counter, used FROM gq_usage WHERE uid = \(bind: uid)").all() {
                used[try row.decode(column: "counter", as: String.self)] = try row.decode(
                    column: "used",
                    as: Int64.self
                )
            }
            let counters = account.plan.counters.sorted { $0.key < $1.key }.map { counter, limit in
                CounterUsage(counter: counter, limit: UInt64(limit), used: UInt64(max(0, used[counter] ?? 0)))
            }
            let features = configuration.plans.featureNames.map { name in
                FeatureFlag(feature: name, enabled: account.plan.features[name] ?? false)
            }
            return QuotaUsageResponse(plan: account.name, counters: counters, features: features)
        }
    }

    /// Whether the account's plan turns `feature` on (a uid without an account: the guest plan).
    func feature(uid: String, feature: String) async throws -> FeatureCheckResponse {
        guard configuration.plans.featureNames.contains(feature) else { throw GuestQuotaError.unknownFeature(feature) }
        return try await database.withConnection { sql in
            let account = try await planOrGuest(sql, uid: uid)
            return FeatureCheckResponse(plan: account.name, enabled: account.plan.features[feature] ?? false)
        }
    }

    /// Adds the guest's counters to the account's and deletes the guest's quota account, in one transaction,
    /// once per op id: the op's row is inserted first, so a retry (or a concurrent duplicate) finds it and answers
    /// the stored report; an op id seen with another pair is `op-conflict`.
    func merge(from guest: String, to account: String, op: String) async throws -> QuotaMergeResponse {
        guard guest != account else { throw GuestQuotaError.mergeIntoSelf }
        let now = configuration.now()
        let answer = try await write { sql -> QuotaMergeResponse in
            let claimed = try await sql.raw(
                """
                INSERT INTO gq_merges (op, from_uid, to_uid, merged_at)
                VALUES (\(bind: op), \(bind: guest), \(bind: account), \(SQLTimestamp(now)))
                ON CONFLICT (op) DO NOTHING
                RETURNING op
                """
            ).first()
            guard claimed != nil else { return try await recordedMerge(sql, op: op, from: guest, to: account) }
            _ = try await accountPlan(sql, uid: account, lock: true)
            let report = try await moveCounters(sql, from: guest, to: account)
            try await sql.raw(
                "UPDATE gq_merges SET result = \(SQLBytes(Array(report.encoded().readableBytesView))) WHERE op = \(bind: op)"
            ).run()
            return report
        }
        try configuration.failureInjection?.fire(.afterMerge)
        return answer
    }

    private func recordedMerge(
        _ sql: any SQLDatabase,
        op: String,
        from guest: String,
        to account: String
    ) async throws
        -> QuotaMergeResponse
    {
        guard
            let row = try await sql.raw("SELECT from_uid, to_uid, result FROM gq_merges WHERE op = \(bind: op)").first()
        else { throw GuestQuotaError.opConflict("merge op \(op) disappeared while it was being checked") }
        let from = try row.decode(column: "from_uid", as: String.self)
        let to = try row.decode(column: "to_uid", as: String.self)
        guard from == guest, to == account else {
            throw GuestQuotaError.opConflict("merge op \(op) was used for another pair of uids")
        }
        guard let bytes = try row.decodeOptionalBytes(column: "result") else {
            throw GuestQuotaError.opConflict("merge op \(op) has no recorded result")
        }
        return try QuotaMergeResponse(decoding: ByteBuffer(bytes: bytes))
    }

    private func moveCounters(
        _ sql: any SQLDatabase,
        from guest: String,
        to account: String
    ) async throws
        -> QuotaMergeResponse
    {
        guard
            let guestPlan = try await sql.raw("DELETE FROM gq_accounts WHERE uid = \(bind: guest) RETURNING plan")
                .first(decodingColumn: "plan", as: String.self)
        else { return QuotaMergeResponse(guestFound: false, counters: []) }
        if guestPlan == configuration.guestPlan { try await adjustCensus(sql, by: -1) }
        var counters: [QuotaMergeResponse.MergedCounter] = []
        for row in try await sql.raw("SELECT counter, used FROM gq_usage WHERE uid = \(bind: guest) ORDER BY counter")
            .all()
        {
            let counter = try row.decode(column: "counter", as: String.self)
            let used = try row.decode(column: "used", as: Int64.self)
            guard used > 0 else { continue }
            try await sql.raw(
                """
                INSERT INTO gq_usage (uid, counter, used) VALUES (\(bind: account), \(bind: counter), \(bind: used))
                ON CONFLICT (uid, counter) DO UPDATE SET used = gq_usage.used + excluded.used
                """
            ).run()
            counters.append(QuotaMergeResponse.MergedCounter(counter: counter, added: UInt64(used)))
        }
        try await deleteRows(sql, uid: guest)
        return QuotaMergeResponse(guestFound: true, counters: counters.sorted { $0.counter < $1.counter })
    }

    private func deleteRows(_ sql: any SQLDatabase, uid: String) async throws {
        try await sql.raw("DELETE FROM gq_usage WHERE uid = \(bind: uid)").run()
        try await sql.raw("DELETE FROM gq_consumptions WHERE uid = \(bind: uid)").run()
    }

    /// Deletes the account, its counters, its consume records and its merge records; idempotent.
    func deleteAll(uid: String) async throws -> QuotaDeleteAllResponse {
        try await deleteAll(uids: [uid])[0]
    }

    /// `deleteAll` of every uid in one transaction, answered in the order of `uids` (a uid listed twice is found
    /// the first time only). Also deletes the records of the merges the uids took part in.
    func deleteAll(uids: [String]) async throws -> [QuotaDeleteAllResponse] {
        let answers = try await write { sql -> [QuotaDeleteAllResponse] in
            let rows = try await sql.raw(
                "DELETE FROM gq_accounts WHERE uid IN (\(binds: uids)) RETURNING uid, plan"
            ).all()
            var plans: [String: String] = [:]
            for row in rows {
                plans[try row.decode(column: "uid", as: String.self)] = try row.decode(column: "plan", as: String.self)
            }
            let guests = plans.values.count { $0 == configuration.guestPlan }
            if guests > 0 { try await adjustCensus(sql, by: -Int64(guests)) }
            try await sql.raw("DELETE FROM gq_usage WHERE uid IN (\(binds: uids))").run()
            try await sql.raw("DELETE FROM gq_consumptions WHERE uid IN (\(binds: uids))").run()
            // The merges they took part in name them; a merge retried afterwards finds no account and adds nothing.
            try await sql.raw(
                "DELETE FROM gq_merges WHERE from_uid IN (\(binds: uids)) OR to_uid IN (\(binds: uids))"
            ).run()
            return uids.map { uid in
                let plan = plans.removeValue(forKey: uid)
                return QuotaDeleteAllResponse(existed: plan != nil, wasGuest: plan == configuration.guestPlan)
            }
        }
        try configuration.failureInjection?.fire(.afterDeleteAll)
        return answers
    }
}
