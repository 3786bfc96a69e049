import Foundation
import FoyerAPI
import FoyerCrypto
import FoyerStorage
import SQLKit

/// An event as the deliverer sends it: a row of `identity_events` claimed for one attempt.
struct ClaimedEvent: Sendable {
    var position: Int64
    var id: String
    var uid: String
    var body: String
    /// Attempts made before this one.
    var attempts: Int
}

/// SQL on `identity_events`, identity's transactional outbox of webhooks. Every function runs on the connection it
/// is given; `append` on the transaction of the change the event reports, so the event exists exactly when the
/// change does.
enum EventRecords {
    private static let columns = """
        position, id, type, uid, sequence, occurred_at, state, attempts, next_attempt_at, delivered_at, last_error, \
        body
        """

    /// Writes `event` of `uid`, pending and due at once, with the uid's next sequence number. The user's row must
    /// exist (append before deleting it); updating its counter also orders the uid's writers one after the other.
    static func append(_ sql: any SQLDatabase, _ event: EventDraft, uid: String, now: Date) async throws {
        let now = now.atWirePrecision
        guard
            let row = try await sql.raw(
                """
                UPDATE identity_users SET event_sequence = event_sequence + 1 WHERE uid = \(bind: uid)
                RETURNING event_sequence
                """
            ).first()
        else { throw IdentityStoreError("an event of a user that does not exist") }
        let sequence = try row.decode(column: "event_sequence", as: Int64.self)
        let id = "evt_" + Identifiers.hex(SecureRandom.bytes(count: 16))
        let body = try event.body(id: id, uid: uid, sequence: sequence, occurredAt: now)
        guard body.utf8.count <= EventLimits.bodyByteCountMax else {
            throw IdentityStoreError("an event body of \(body.utf8.count) bytes")
        }
        try await sql.raw(
            """
            INSERT INTO identity_events (id, type, uid, sequence, occurred_at, body, state, attempts, next_attempt_at)
            VALUES (\(bind: id), \(bind: event.type), \(bind: uid), \(bind: sequence), \(SQLTimestamp(now)),
                \(bind: body), 'pending', 0, \(SQLTimestamp(now)))
            """
        ).run()
    }

    /// Leases up to `limit` due events until `leaseUntil` and answers them in outbox order: pending, due, not leased
    /// by anyone else, and each the earliest pending event of its uid (so a uid's events go one at a time, in order).
    /// The lease is checked again by the update itself, so two replicas that pick the same rows at once lease each
    /// row once (PostgreSQL re-reads a row it waited for; SQLite runs one writer at a time).
    static func claim(_ sql: any SQLDatabase, now: Date, leaseUntil: Date, limit: Int) async throws -> [ClaimedEvent] {
        let skipLocked = sql.engineKind == .postgres ? " FOR UPDATE SKIP LOCKED" : ""
        let free: SQLQueryString = "(lease_until IS NULL OR lease_until <= \(SQLTimestamp(now)))"
        return try await sql.raw(
            """
            UPDATE identity_events SET lease_until = \(SQLTimestamp(leaseUntil))
            WHERE position IN (
                SELECT e.position FROM identity_events e
                WHERE e.state = 'pending' AND e.next_attempt_at <= \(SQLTimestamp(now)) AND \(free)
                    AND NOT EXISTS (
                        SELECT 1 FROM identity_events p
                        WHERE p.uid = e.uid AND p.position < e.position AND p.state = 'pending')
                ORDER BY e.position LIMIT \(bind: limit)\(unsafeRaw: skipLocked))
            AND state = 'pending' AND \(free)
            RETURNING position, id, uid, body, attempts
            """
        ).all().map { row in
            ClaimedEvent(
                position: try row.decode(column: "position", as: Int64.self),
                id: try row.decode(column: "id", as: String.self),
                uid: try row.decode(column: "uid", as: String.self),
                body: try row.decode(column: "body", as: String.self),
                attempts: Int(try row.decode(column: "attempts", as: Int64.self))
            )
        }.sorted { $0.position < $1.position }
    }

    /// How many events are pending, and when the oldest of them happened (nil when none is).
    static func backlog(_ sql: any SQLDatabase) async throws -> (pending: Int64, oldest: Date?) {
        guard
            let row = try await sql.raw(
                "SELECT COUNT(*) AS n, MIN(occurred_at) AS oldest FROM identity_events WHERE state = 'pending'"
            ).first()
        else { return (0, nil) }
        return (try row.decode(column: "n", as: Int64.self), try row.decodeOptionalDate(column: "oldest"))
    }

    /// Every endpoint took the event.
    static func markDelivered(_ sql: any SQLDatabase, position: Int64, now: Date) async throws {
        try await sql.raw(
            """
            UPDATE identity_events SET state = 'delivered', delivered_at = \(SQLTimestamp(now)),
                attempts = attempts + 1, lease_until = NULL, last_error = NULL
            WHERE position = \(bind: position) AND state = 'pending'
            """
        ).run()
    }

    /// The attempt failed: due again at `retryAt`, or `failed` when it was the last one (`retryAt` nil).
    static func markAttemptFailed(
        _ sql: any SQLDatabase,
        position: Int64,
        error: String,
        retryAt: Date?,
        now: Date
    ) async throws {
        let error = String(decoding: error.utf8.prefix(EventLimits.errorByteCountMax), as: UTF8.self)
        try await sql.raw(
            """
            UPDATE identity_events SET state = \(bind: retryAt == nil ? "failed" : "pending"),
                next_attempt_at = \(SQLTimestamp(retryAt ?? now)), attempts = attempts + 1, lease_until = NULL,
                last_error = \(bind: error)
            WHERE position = \(bind: position) AND state = 'pending'
            """
        ).run()
    }

    /// Makes the event pending again, due now, with no attempt counted; answers it, or nil when there is none.
    static func replay(_ sql: any SQLDatabase, id: String, now: Date) async throws -> EventInfo? {
        try await sql.raw(
            """
            UPDATE identity_events SET state = 'pending', attempts = 0, next_attempt_at = \(SQLTimestamp(now)),
                lease_until = NULL, delivered_at = NULL, last_error = NULL
            WHERE id = \(bind: id)
            """
        ).run()
        return try await load(sql, id: id)
    }

    static func load(_ sql: any SQLDatabase, id: String) async throws -> EventInfo? {
        try await sql.raw("SELECT \(unsafeRaw: columns) FROM identity_events WHERE id = \(bind: id)").first()
            .map(info)
    }

    /// Up to `limit` events, newest first, below position `before`, of `uid` and in `state` when given.
    static func list(
        _ sql: any SQLDatabase,
        uid: String?,
        state: EventState?,
        before: UInt64?,
        limit: Int
    ) async throws -> [EventInfo] {
        var filter: SQLQueryString = "WHERE position > 0"
        if let uid { filter = "\(filter) AND uid = \(bind: uid)" }
        if let state { filter = "\(filter) AND state = \(bind: state.description)" }
        if let before { filter = "\(filter) AND position < \(bind: Int64(clamping: before))" }
        return try await sql.raw(
            """
            SELECT \(unsafeRaw: columns) FROM identity_events \(filter)
            ORDER BY position DESC LIMIT \(bind: limit)
            """
        ).all().map(info)
    }

    private static func info(_ row: any SQLRow) throws -> EventInfo {
        let stateText = try row.decode(column: "state", as: String.self)
        guard let state = EventState(name: stateText) else {
            throw IdentityStoreError("unknown event state '\(stateText)'")
        }
        return EventInfo(
            position: UInt64(try row.decode(column: "position", as: Int64.self)),
            id: try row.decode(column: "id", as: String.self),
            type: try row.decode(column: "type", as: String.self),
            uid: try row.decode(column: "uid", as: String.self),
            sequence: UInt64(try row.decode(column: "sequence", as: Int64.self)),
            occurredAtMilliseconds: try row.decodeDate(column: "occurred_at").wireMilliseconds,
            state: state,
            attempts: UInt32(clamping: try row.decode(column: "attempts", as: Int64.self)),
            nextAttemptAtMilliseconds: try row.decodeDate(column: "next_attempt_at").wireMilliseconds,
            deliveredAtMilliseconds: try row.decodeOptionalDate(column: "delivered_at")?.wireMilliseconds,
            lastError: try row.decode(column: "last_error", as: String?.self),
            body: try row.decode(column: "body", as: String.self)
        )
    }
}
