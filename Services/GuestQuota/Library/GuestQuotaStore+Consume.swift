import Foundation
import FoyerAPI
import FoyerStorage
import SQLKit

extension GuestQuotaStore {
    /// Checks each charge against its counter's limit and adds them all, in one transaction, each once per (uid,
    /// key); a charge that would go over its limit refuses the whole consume (the first one, in the request's order).
    ///
    /// The record of each key is inserted first (`ON CONFLICT DO NOTHING`): a second consume with the same keys,
    /// even a concurrent one, then finds them and answers the first one's outcome without counting. Each counter is
    /// raised by a conditional upsert (`used + amount <= limit`), so consumes racing at the limit never exceed it.
    /// A denial rolls every record back: a retry of a denied consume is evaluated afresh. It is counted under the
    /// counter's name for `stats` (in memory, flushed later). A uid without an account is a guest that has used
    /// nothing yet: its first consume opens the account on the guest plan (`openedAccount`). A scoped counter
    /// (`documents:notes`) that the account's plan does not name is skipped: it is limited only where a plan names
    /// it, so the gateway can charge it on every put without knowing the plans.
    func consume(uid: String, charges: [QuotaCharge]) async throws -> ConsumeResponse {
        guard !charges.isEmpty, Set(charges.map(\.counter)).count == charges.count else {
            throw GuestQuotaError.invalidArgument(
                "a consume charges 1-\(GuestQuotaLimits.chargesMax) counters, each once"
            )
        }
        for charge in charges where !(1...GuestQuotaLimits.consumeAmountMax).contains(charge.amount) {
            throw GuestQuotaError.invalidAmount(charge.amount)
        }
        let now = configuration.now()
        let answer = try await countingDenials(as: Self.signupDenialKind, [.guestCapReached]) {
            try await write { sql -> ConsumeResponse in
                let account = try await openedAccount(sql, uid: uid, now: now)
                var usage: [CounterUsage] = []
                var replays = 0
                for charge in charges {
                    guard let limit = account.plan.counters[charge.counter] else {
                        if PlanCatalog.isScoped(charge.counter) { continue }
                        throw GuestQuotaError.unknownCounter(charge.counter, plan: account.name)
                    }
                    let counted = try await count(sql, uid: uid, charge: charge, limit: limit, now: now)
                    usage.append(counted.usage)
                    if counted.replayed { replays += 1 }
                }
                guard replays == 0 || replays == usage.count else {
                    throw GuestQuotaError.opConflict("some of these idempotency keys were counted before, not all")
                }
                return ConsumeResponse(usage: usage, replayed: replays > 0, opened: account.opened)
            }
        }
        try configuration.failureInjection?.fire(.afterConsume)
        await maintainOccasionally()
        return answer
    }

    /// One charge of `consume`, in its transaction.
    private func count(
        _ sql: any SQLDatabase,
        uid: String,
        charge: QuotaCharge,
        limit: Int64,
        now: Date
    ) async throws -> (usage: CounterUsage, replayed: Bool) {
        let (counter, amount, key) = (charge.counter, charge.amount, charge.idempotencyKey)
        let recorded = try await sql.raw(
            """
            INSERT INTO gq_consumptions (uid, idempotency_key, counter, amount, refunded, created_at)
            VALUES (\(bind: uid), \(bind: key), \(bind: counter), \(bind: amount), \(bind: false), \(SQLTimestamp(now)))
            ON CONFLICT (uid, idempotency_key) DO NOTHING
            RETURNING uid
            """
        ).first()
        guard recorded != nil else {
            return (try await replay(sql, uid: uid, counter: counter, amount: amount, key: key, limit: limit), true)
        }
        let raised =
            amount > limit
            ? nil
            : try await sql.raw(
                """
                INSERT INTO gq_usage (uid, counter, used) VALUES (\(bind: uid), \(bind: counter), \(bind: amount))
                ON CONFLICT (uid, counter) DO UPDATE SET used = gq_usage.used + excluded.used
                WHERE gq_usage.used + excluded.used <= \(bind: limit)
                RETURNING used
                """
            ).first(decodingColumn: "used", as: Int64.self)
        guard let raised else {
            let used = try await used(sql, uid: uid, counter: counter)
            let usage = CounterUsage(counter: counter, limit: UInt64(limit), used: UInt64(max(0, used)))
            GuestQuotaMetrics.denied(counter: counter)
            denials.record(kind: counter, at: now)
            throw GuestQuotaError.quotaExceeded(QuotaExceededDetails(usage: usage, requested: UInt64(amount)))
        }
        return (CounterUsage(counter: counter, limit: UInt64(limit), used: UInt64(raised)), false)
    }

    /// The answer to a key that was counted before.
    private func replay(
        _ sql: any SQLDatabase,
        uid: String,
        counter: String,
        amount: Int64,
        key: String,
        limit: Int64
    ) async throws -> CounterUsage {
        guard
            let row = try await sql.raw(
                """
                SELECT counter, amount, refunded FROM gq_consumptions
                WHERE uid = \(bind: uid) AND idempotency_key = \(bind: key)
                """
            ).first()
        else {
            // Pruned between the two statements: the key is older than the retention; refuse rather than count.
            throw GuestQuotaError.opConflict("idempotency key \(key) expired while it was being checked; use a new key")
        }
        if try row.decode(column: "refunded", as: Bool.self) {
            throw GuestQuotaError.opConflict("idempotency key \(key) was refunded; a new consume needs a new key")
        }
        let recordedCounter = try row.decode(column: "counter", as: String.self)
        let recordedAmount = try row.decode(column: "amount", as: Int64.self)
        guard recordedCounter == counter, recordedAmount == amount else {
            throw GuestQuotaError.opConflict(
                "idempotency key \(key) was used for \(recordedAmount) of '\(recordedCounter)', not \(amount) of '\(counter)'"
            )
        }
        let used = try await used(sql, uid: uid, counter: counter)
        return CounterUsage(counter: counter, limit: UInt64(limit), used: UInt64(max(0, used)))
    }

    /// Gives back `amount` of `counter` once per `key` (the key is recorded as a refunded consumption, so it can
    /// never count as a consume either). Usage never goes below zero. A scoped counter the plan does not name
    /// answers `notFound` and records nothing.
    func release(uid: String, counter: String, amount: Int64, key: String) async throws -> RefundResponse {
        guard amount >= 1, amount <= GuestQuotaLimits.consumeAmountMax else {
            throw GuestQuotaError.invalidAmount(amount)
        }
        let now = configuration.now()
        return try await write { sql -> RefundResponse in
            let account = try await accountPlan(sql, uid: uid)
            guard account.plan.counters[counter] != nil else {
                // Nothing was counted under a scoped counter the plan does not name: nothing to give back.
                if PlanCatalog.isScoped(counter) { return RefundResponse(outcome: .notFound, usage: nil) }
                throw GuestQuotaError.unknownCounter(counter, plan: account.name)
            }
            let recorded = try await sql.raw(
                """
                INSERT INTO gq_consumptions (uid, idempotency_key, counter, amount, refunded, created_at)
                VALUES (\(bind: uid), \(bind: key), \(bind: counter), \(bind: amount), \(bind: true), \(SQLTimestamp(now)))
                ON CONFLICT (uid, idempotency_key) DO NOTHING
                RETURNING uid
                """
            ).first()
            guard recorded != nil else {
                return RefundResponse(
                    outcome: .alreadyRefunded,
                    usage: try await usage(sql, uid: uid, counter: counter)
                )
            }
            try await sql.raw(
                """
                UPDATE gq_usage
                SET used = CASE WHEN used > \(bind: amount) THEN used - \(bind: amount) ELSE 0 END
                WHERE uid = \(bind: uid) AND counter = \(bind: counter)
                """
            ).run()
            return RefundResponse(outcome: .refunded, usage: try await usage(sql, uid: uid, counter: counter))
        }
    }

    /// Undoes the consume made with `key`, at most once. An unknown key of an existing account is recorded as
    /// refunded, so a consume that arrives late with that key is refused instead of counted; without an account
    /// nothing is recorded (a consume would be refused `account-not-found` anyway).
    func refund(uid: String, key: String) async throws -> RefundResponse {
        let now = configuration.now()
        let answer = try await write { sql -> RefundResponse in
            if let row = try await sql.raw(
                """
                UPDATE gq_consumptions SET refunded = \(bind: true)
                WHERE uid = \(bind: uid) AND idempotency_key = \(bind: key) AND refunded = \(bind: false)
                RETURNING counter, amount
                """
            ).first() {
                let counter = try row.decode(column: "counter", as: String.self)
                let amount = try row.decode(column: "amount", as: Int64.self)
                try await sql.raw(
                    """
                    UPDATE gq_usage
                    SET used = CASE WHEN used > \(bind: amount) THEN used - \(bind: amount) ELSE 0 END
                    WHERE uid = \(bind: uid) AND counter = \(bind: counter)
                    """
                ).run()
                return RefundResponse(outcome: .refunded, usage: try await usage(sql, uid: uid, counter: counter))
            }
            // No account, no consume can count under the key later: nothing to remember (nothing is kept of a uid
            // after its deletion, even when a refund comes late).
            guard try await sql.raw("SELECT uid FROM gq_accounts WHERE uid = \(bind: uid)").first() != nil else {
                return RefundResponse(outcome: .notFound, usage: nil)
            }
            let tombstone = try await sql.raw(
                """
                INSERT INTO gq_consumptions (uid, idempotency_key, counter, amount, refunded, created_at)
                VALUES (\(bind: uid), \(bind: key), \(bind: ""), \(bind: Int64(0)), \(bind: true), \(SQLTimestamp(now)))
                ON CONFLICT (uid, idempotency_key) DO NOTHING
                RETURNING uid
                """
            ).first()
            if tombstone != nil { return RefundResponse(outcome: .notFound, usage: nil) }
            let counter =
                try await sql.raw(
                    "SELECT counter FROM gq_consumptions WHERE uid = \(bind: uid) AND idempotency_key = \(bind: key)"
                ).first(decodingColumn: "counter", as: String.self) ?? ""
            if counter.isEmpty { return RefundResponse(outcome: .notFound, usage: nil) }
            return RefundResponse(outcome: .alreadyRefunded, usage: try await usage(sql, uid: uid, counter: counter))
        }
        try configuration.failureInjection?.fire(.afterRefund)
        await maintainOccasionally()
        return answer
    }

    /// The counter as it stands, or `nil` when the account is gone or its plan has no such counter any more.
    private func usage(_ sql: any SQLDatabase, uid: String, counter: String) async throws -> CounterUsage? {
        guard let account = try? await accountPlan(sql, uid: uid), let limit = account.plan.counters[counter] else {
            return nil
        }
        let used = try await used(sql, uid: uid, counter: counter)
        return CounterUsage(counter: counter, limit: UInt64(limit), used: UInt64(max(0, used)))
    }
}
