import Foundation
import FoyerAPI
import FoyerRPC
import FoyerStorage
import Logging
import SQLKit
import Synchronization

/// guest-quota's tables and the transactions over them. One store per process; several processes may share a
/// PostgreSQL database (every check-and-change is one transaction with row locks or conditional updates).
///
/// Tables (Services/GuestQuota/README.md describes each column):
/// - `gq_accounts`: uid, plan.
/// - `gq_usage`: what each account used of each counter.
/// - `gq_consumptions`: one row per counted idempotency key (and per refunded unknown key), for retries and
///   refunds; kept for `idempotencyRetention`.
/// - `gq_merges`: one row per merge op id, with the answer it gave; kept for `mergeRecordRetention`.
/// - `gq_signup_buckets`: a token bucket per sign-up source.
/// - `gq_guest_census`: one row holding the number of live guests.
/// - `guest_quota_denials`: refused consumes and sign-up admissions per minute and kind, from every replica's
///   flushes (`GuestQuotaStore+Denials.swift`); kept for `denialRetention`.
final class GuestQuotaStore: Sendable {
    let database: FoyerDatabase
    let configuration: GuestQuotaConfiguration
    let logger: Logger
    /// Counts calls, so that pruning of old rows runs every `maintenanceInterval` calls.
    private let calls = Atomic<UInt64>(0)
    private static let maintenanceInterval: UInt64 = 64
    private static let maintenanceBatch = 64
    /// The denials answered and not yet flushed (`flushDenials`).
    let denials = DenialTally()
    /// Held by a flush and by `stats`' reading of the denials, so that tallies being written are counted once.
    let denialGate = AsyncSemaphore(permits: 1)
    /// When this replica last warned that live guests are near the cap (`reportLiveGuests`).
    let liveGuestsWarnedAt = Mutex<Date?>(nil)
    /// The least time between two warnings that live guests are near the cap, per replica: 10 minutes.
    static let liveGuestsWarningInterval: TimeInterval = 600

    static let serviceName = "guest-quota"

    init(database: FoyerDatabase, configuration: GuestQuotaConfiguration, logger: Logger) {
        self.database = database
        self.configuration = configuration
        self.logger = logger
    }

    static let migrations: [Migration] = [
        Migration(version: 1, name: "accounts, usage, consumptions, merges, sign-up buckets, guest census") { engine in
            [
                """
                CREATE TABLE gq_accounts (
                    uid TEXT PRIMARY KEY,
                    plan TEXT NOT NULL,
                    created_at BIGINT NOT NULL,
                    updated_at BIGINT NOT NULL
                )
                """,
                """
                CREATE TABLE gq_usage (
                    uid TEXT NOT NULL,
                    counter TEXT NOT NULL,
                    used BIGINT NOT NULL,
                    PRIMARY KEY (uid, counter)
                )
                """,
                """
                CREATE TABLE gq_consumptions (
                    uid TEXT NOT NULL,
                    idempotency_key TEXT NOT NULL,
                    counter TEXT NOT NULL,
                    amount BIGINT NOT NULL,
                    refunded BOOLEAN NOT NULL,
                    created_at BIGINT NOT NULL,
                    PRIMARY KEY (uid, idempotency_key)
                )
                """,
                "CREATE INDEX gq_consumptions_created_at ON gq_consumptions (created_at)",
                """
                CREATE TABLE gq_merges (
                    op TEXT PRIMARY KEY,
                    from_uid TEXT NOT NULL,
                    to_uid TEXT NOT NULL,
                    result \(engine.binaryColumnType),
                    merged_at BIGINT NOT NULL
                )
                """,
                """
                CREATE TABLE gq_signup_buckets (
                    source TEXT PRIMARY KEY,
                    tokens DOUBLE PRECISION NOT NULL,
                    updated_at BIGINT NOT NULL
                )
                """,
                "CREATE INDEX gq_signup_buckets_updated_at ON gq_signup_buckets (updated_at)",
                "CREATE TABLE gq_guest_census (id BIGINT PRIMARY KEY, live_guests BIGINT NOT NULL)",
                "INSERT INTO gq_guest_census (id, live_guests) VALUES (1, 0)",
            ]
        },
        Migration(
            version: 2,
            name: "merge records by time, for their pruning",
            statements: ["CREATE INDEX gq_merges_merged_at ON gq_merges (merged_at)"]
        ),
        Migration(
            version: 3,
            name: "denials per minute and kind, for the cluster's counts",
            statements: [
                """
                CREATE TABLE guest_quota_denials (
                    minute_start BIGINT NOT NULL,
                    kind TEXT NOT NULL,
                    count BIGINT NOT NULL,
                    PRIMARY KEY (minute_start, kind)
                )
                """
            ]
        ),
        Migration(
            version: 4,
            name: "merge records by either uid, for deleting them with the user",
            statements: [
                "CREATE INDEX gq_merges_from_uid ON gq_merges (from_uid)",
                "CREATE INDEX gq_merges_to_uid ON gq_merges (to_uid)",
            ]
        ),
    ]

    func migrate() async throws {
        try await database.migrate(service: Self.serviceName, migrations: Self.migrations)
    }

    // MARK: Shared pieces

    /// A read-modify-write transaction, retried on deadlocks and serialization failures.
    func write<T>(_ body: (any SQLDatabase) async throws -> T) async throws -> T {
        try await database.transaction(retryingSerializationFailures: 3) { sql in try await body(sql) }
    }

    /// `FOR UPDATE` on PostgreSQL; nothing on SQLite, whose writers run one at a time.
    func forUpdate(_ sql: any SQLDatabase) -> SQLQueryString {
        sql.engineKind == .postgres ? " FOR UPDATE" : ""
    }

    /// The configured plan called `name`, or `unknown-plan`.
    func plan(named name: String) throws(GuestQuotaError) -> Plan {
        guard let plan = configuration.plans.plans[name] else { throw .unknownPlan(name) }
        return plan
    }

    /// The account's plan name and plan; `account-not-found` when there is no account.
    func accountPlan(_ sql: any SQLDatabase, uid: String, lock: Bool = false) async throws -> (name: String, plan: Plan)
    {
        guard let account = try await storedPlan(sql, uid: uid, lock: lock) else {
            throw GuestQuotaError.accountNotFound(uid)
        }
        return account
    }

    /// The account's plan name and plan, if the uid has an account.
    func storedPlan(_ sql: any SQLDatabase, uid: String, lock: Bool = false) async throws -> (name: String, plan: Plan)?
    {
        guard
            let name = try await sql.raw(
                "SELECT plan FROM gq_accounts WHERE uid = \(bind: uid)\(lock ? forUpdate(sql) : "")"
            ).first(decodingColumn: "plan", as: String.self)
        else { return nil }
        return (name, try plan(named: name))
    }

    /// The account's plan, or the guest plan for a uid without an account (a guest that has used nothing yet).
    func planOrGuest(_ sql: any SQLDatabase, uid: String) async throws -> (name: String, plan: Plan) {
        if let account = try await storedPlan(sql, uid: uid) { return account }
        return (configuration.guestPlan, try plan(named: configuration.guestPlan))
    }

    /// What `uid` used of `counter` (0 when nothing was counted yet).
    func used(_ sql: any SQLDatabase, uid: String, counter: String) async throws -> Int64 {
        try await sql.raw(
            "SELECT used FROM gq_usage WHERE uid = \(bind: uid) AND counter = \(bind: counter)"
        ).first(decodingColumn: "used", as: Int64.self) ?? 0
    }

    /// Adds `delta` (which may be negative) to the live-guest count, never below zero.
    func adjustCensus(_ sql: any SQLDatabase, by delta: Int64) async throws {
        try await sql.raw(
            """
            UPDATE gq_guest_census
            SET live_guests = CASE WHEN live_guests + \(bind: delta) < 0 THEN 0 ELSE live_guests + \(bind: delta) END
            WHERE id = 1
            """
        ).run()
    }

    func liveGuests(_ sql: any SQLDatabase) async throws -> Int64 {
        try await sql.raw("SELECT live_guests FROM gq_guest_census WHERE id = 1")
            .first(decodingColumn: "live_guests", as: Int64.self) ?? 0
    }

    func stats() async throws -> GuestQuotaStats {
        let live = try await database.withConnection { sql in try await liveGuests(sql) }
        reportLiveGuests(live)
        let denied = try await denialStats()
        return GuestQuotaStats(
            liveGuests: UInt64(max(0, live)),
            liveGuestsMax: UInt64(configuration.liveGuestsMax),
            denialsLastHour: denied.total,
            denialsByKind: denied.byKind
        )
    }

    // MARK: Maintenance

    /// Every `maintenanceInterval` calls, deletes a few expired consume records, full sign-up buckets, old merge
    /// records and old denial counts, in a transaction of its own (a failure is logged, never reported to the caller).
    func maintainOccasionally() async {
        let count = calls.wrappingAdd(1, ordering: .relaxed).newValue
        guard count % Self.maintenanceInterval == 0 else { return }
        do {
            _ = try await pruneExpiredRows(limit: Self.maintenanceBatch)
        } catch {
            logger.warning("pruning old rows failed", metadata: ["error": "\(String(reflecting: error))"])
        }
    }

    /// Deletes, oldest first and at most `limit` of each, consume records older than `idempotencyRetention`,
    /// sign-up buckets untouched for longer than a full refill (a full bucket is the same as none), and merge
    /// records older than `mergeRecordRetention` (they name both uids; a merge retried after that finds the guest's
    /// account gone and adds nothing), and denial counts of minutes older than `denialRetention`. Returns how many
    /// rows went.
    func pruneExpiredRows(limit: Int) async throws -> Int {
        let now = configuration.now()
        let keysBefore = now.addingTimeInterval(-Double(configuration.idempotencyRetention.components.seconds))
        // A bucket untouched for longer than a full refill is full: the same as no row.
        let refill = max(
            Double(configuration.signupBurstPerSource) / signupRatePerSecond,
            Double(configuration.signupBurstPerNetwork) * 3600 / Double(configuration.signupsPerNetworkPerHour)
        )
        let bucketsBefore = now.addingTimeInterval(-refill)
        let mergesBefore = now.addingTimeInterval(-Double(configuration.mergeRecordRetention.components.seconds))
        return try await database.transaction { sql in
            let keys = try await sql.raw(
                """
                DELETE FROM gq_consumptions WHERE (uid, idempotency_key) IN (
                    SELECT uid, idempotency_key FROM gq_consumptions
                    WHERE created_at < \(SQLTimestamp(keysBefore)) LIMIT \(literal: limit))
                RETURNING uid
                """
            ).all().count
            let buckets = try await sql.raw(
                """
                DELETE FROM gq_signup_buckets WHERE source IN (
                    SELECT source FROM gq_signup_buckets
                    WHERE updated_at < \(SQLTimestamp(bucketsBefore)) LIMIT \(literal: limit))
                RETURNING source
                """
            ).all().count
            let merges = try await sql.raw(
                """
                DELETE FROM gq_merges WHERE op IN (
                    SELECT op FROM gq_merges WHERE merged_at < \(SQLTimestamp(mergesBefore))
                    ORDER BY merged_at LIMIT \(literal: limit))
                RETURNING op
                """
            ).all().count
            let denialRows = try await pruneDenials(sql, now: now, limit: limit)
            return keys + buckets + merges + denialRows
        }
    }

    /// Tokens a source's bucket gains per second.
    var signupRatePerSecond: Double { Double(configuration.signupsPerSourcePerHour) / 3600 }
}
