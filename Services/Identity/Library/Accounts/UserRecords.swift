import Foundation
import FoyerAPI
import FoyerLifecycle
import FoyerStorage
import SQLKit

/// A row of `identity_users`.
struct UserRecord: Sendable {
    var uid: String
    var isAnonymous: Bool
    var state: AccountStateKind
    var mergeInto: String?
    var operationID: String?
    /// The merge policy (merging) or the deletion reason (deleting), as its wire value.
    var operationDetail: UInt8?
    var stateSince: Date?
    var createdAt: Date
    var lastActivityAt: Date
    /// Access tokens issued (`iat`) before this second are refused.
    var tokensNotBefore: Int64
    /// The plan an operator set and the app-defined roles, written into its access tokens.
    var grants: UserGrants

    var accountState: AccountState {
        phase.state(of: uid, sinceMilliseconds: stateSince?.wireMilliseconds)
    }

    /// Where the user is in the account state machine.
    var phase: AccountPhase {
        switch state {
        case .active: isAnonymous ? .guest : .member
        case .merging:
            .merging(
                into: mergeInto ?? "",
                operation: operationID ?? "",
                policy: operationDetail.flatMap(MergePolicy.init(rawValue:)) ?? .keepBoth
            )
        case .deleting:
            .deleting(
                operation: operationID ?? "",
                reason: operationDetail.flatMap(DeletionReason.init(rawValue:)) ?? .userRequest
            )
        }
    }
}

/// SQL on `identity_users`. Every function runs on the connection it is given (usually a transaction's).
enum UserRecords {
    static let columns =
        "uid, is_anonymous, state, merge_into, operation_id, operation_detail, state_since, created_at, last_activity_at, tokens_not_before, plan, roles"

    static func insert(_ sql: any SQLDatabase, uid: String, isAnonymous: Bool, now: Date) async throws {
        let now = now.atWirePrecision
        try await sql.raw(
            """
            INSERT INTO identity_users (\(unsafeRaw: columns))
            VALUES (\(bind: uid), \(bind: isAnonymous), 'active', NULL, NULL, NULL, NULL, \(SQLTimestamp(now)),
                    \(SQLTimestamp(now)), 0, NULL, '')
            """
        ).run()
        if !isAnonymous { IdentityMetrics.signedUp(.member) }
    }

    /// The user, locked for the rest of the transaction when `lock` is set (PostgreSQL).
    static func load(_ sql: any SQLDatabase, uid: String, lock: Bool = false) async throws -> UserRecord? {
        let lockClause = lock ? sql.lockClause : ""
        guard
            let row = try await sql.raw(
                "SELECT \(unsafeRaw: columns) FROM identity_users WHERE uid = \(bind: uid)\(unsafeRaw: lockClause)"
            ).first()
        else { return nil }
        return try record(row)
    }

    /// The users of `uids` that exist, by uid, locked (in uid order) for the rest of the transaction when `lock` is
    /// set (PostgreSQL).
    static func load(_ sql: any SQLDatabase, uids: [String], lock: Bool = false) async throws -> [String: UserRecord] {
        let lockClause = lock ? sql.lockClause : ""
        let rows = try await sql.raw(
            """
            SELECT \(unsafeRaw: columns) FROM identity_users WHERE uid IN (\(binds: uids))
            ORDER BY uid\(unsafeRaw: lockClause)
            """
        ).all()
        return try Dictionary(
            rows.map { row in
                let user = try record(row); return (user.uid, user)
            }
        ) { first, _ in first }
    }

    /// Whether a guest is being merged into `uid` right now.
    static func isMergeTarget(_ sql: any SQLDatabase, uid: String) async throws -> Bool {
        try await sql.raw(
            "SELECT 1 AS one FROM identity_users WHERE state = 'merging' AND merge_into = \(bind: uid) LIMIT 1"
        ).first() != nil
    }

    /// The user, which must exist and be active: `user-not-found` or `account-not-active` otherwise.
    static func requireActive(_ sql: any SQLDatabase, uid: String, lock: Bool = false) async throws -> UserRecord {
        guard let user = try await load(sql, uid: uid, lock: lock) else { throw IdentityError.userNotFound() }
        guard user.state == .active else { throw IdentityError.accountNotActive(user.state.description) }
        return user
    }

    static func record(_ row: any SQLRow) throws -> UserRecord {
        let stateText = try row.decode(column: "state", as: String.self)
        guard let state = stateKind(stateText) else {
            throw IdentityStoreError("unknown user state '\(stateText)'")
        }
        return UserRecord(
            uid: try row.decode(column: "uid", as: String.self),
            isAnonymous: try row.decode(column: "is_anonymous", as: Bool.self),
            state: state,
            mergeInto: try row.decode(column: "merge_into", as: String?.self),
            operationID: try row.decode(column: "operation_id", as: String?.self),
            operationDetail: try row.decode(column: "operation_detail", as: Int64?.self).flatMap(UInt8.init(exactly:)),
            stateSince: try row.decodeOptionalDate(column: "state_since"),
            createdAt: try row.decodeDate(column: "created_at"),
            lastActivityAt: try row.decodeDate(column: "last_activity_at"),
            tokensNotBefore: try row.decode(column: "tokens_not_before", as: Int64.self),
            grants: UserGrants(
                plan: try row.decode(column: "plan", as: String?.self),
                rolesText: try row.decode(column: "roles", as: String.self)
            )
        )
    }

    /// The user is now a permanent account, on the member plan (a plan set for it as a guest is dropped, as the
    /// gateway moves its quota account to the member plan). Its device keys go: they sign in to guests only, and a
    /// member signs in with the credentials it proved.
    static func makePermanent(_ sql: any SQLDatabase, uid: String) async throws {
        try await sql.raw(
            "UPDATE identity_users SET is_anonymous = \(bind: false), plan = NULL WHERE uid = \(bind: uid)"
        ).run()
        try await DeviceKeyRecords.deleteAll(sql, uids: [uid])
        IdentityMetrics.signedUp(.member)
    }

    /// The user's grants, or nil when there is no such user.
    static func loadGrants(_ sql: any SQLDatabase, uid: String) async throws -> UserGrants? {
        guard let row = try await sql.raw("SELECT plan, roles FROM identity_users WHERE uid = \(bind: uid)").first()
        else { return nil }
        return UserGrants(
            plan: try row.decode(column: "plan", as: String?.self),
            rolesText: try row.decode(column: "roles", as: String.self)
        )
    }

    /// Sets the plan an operator chose. Returns whether the user exists.
    static func setPlan(_ sql: any SQLDatabase, uid: String, plan: String) async throws -> Bool {
        try await !sql.raw("UPDATE identity_users SET plan = \(bind: plan) WHERE uid = \(bind: uid) RETURNING uid")
            .all().isEmpty
    }

    /// Replaces the roles (sorted, without duplicates). Returns whether the user exists.
    static func setRoles(_ sql: any SQLDatabase, uid: String, roles: [String]) async throws -> Bool {
        let text = UserGrants(plan: nil, roles: roles).rolesText
        return try await !sql.raw(
            "UPDATE identity_users SET roles = \(bind: text) WHERE uid = \(bind: uid) RETURNING uid"
        ).all().isEmpty
    }

    /// Access tokens issued before `now` (to the second) stop working.
    static func moveNotBefore(_ sql: any SQLDatabase, uids: [String], now: Date) async throws {
        try await sql.raw(
            "UPDATE identity_users SET tokens_not_before = \(bind: now.epochSeconds) WHERE uid IN (\(binds: uids))"
        ).run()
    }

    /// Moves the user into a merge or a deletion (`phase` is `merging` or `deleting`).
    static func setPhase(_ sql: any SQLDatabase, uid: String, _ phase: AccountPhase, now: Date) async throws {
        let state = phase.state(of: uid)
        let detail = state.mergePolicy?.rawValue ?? state.deletionReason?.rawValue
        try await sql.raw(
            """
            UPDATE identity_users SET state = \(bind: stateText(state.kind)), merge_into = \(bind: state.mergeInto),
                operation_id = \(bind: state.operationID), operation_detail = \(bind: detail.map(Int64.init)),
                state_since = \(SQLTimestamp(now))
            WHERE uid = \(bind: uid)
            """
        ).run()
    }

    /// Writes `now` as the last activity unless it was written less than `interval` ago. Returns whether a row
    /// changed.
    static func touchActivity(_ sql: any SQLDatabase, uid: String, now: Date, interval: Duration) async throws -> Bool {
        let now = now.atWirePrecision
        let threshold = now.subtracting(interval)
        return try await !sql.raw(
            """
            UPDATE identity_users SET last_activity_at = \(SQLTimestamp(now))
            WHERE uid = \(bind: uid) AND last_activity_at <= \(SQLTimestamp(threshold))
            RETURNING uid
            """
        ).all().isEmpty
    }

    static func stateText(_ state: AccountStateKind) -> String {
        switch state {
        case .active: "active"
        case .merging: "merging"
        case .deleting: "deleting"
        }
    }

    static func stateKind(_ text: String) -> AccountStateKind? {
        switch text {
        case "active": .active
        case "merging": .merging
        case "deleting": .deleting
        default: nil
        }
    }
}

/// A row that breaks the schema's invariants (a bug or a hand edit); answered as `internal`.
struct IdentityStoreError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
