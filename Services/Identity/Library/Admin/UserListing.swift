import Foundation
import FoyerAPI
import FoyerStorage
import SQLKit

/// The read-only queries of the admin API on `identity_users`: pages of users in keyset order and the counts.
enum UserListing {
    /// One page of `listUsers`: guests or members from the index on (is_anonymous, created_at, uid) or
    /// (is_anonymous, last_activity_at, uid), read from the cursor on in either direction; `all` merges one range of
    /// each (at most `limit + 1` rows of either), so a page costs the same however many users there are.
    static func page(_ sql: any SQLDatabase, _ request: ListUsersRequest) async throws -> UserSummaries {
        let limit = Int(request.limit)
        let users = try await sql.raw(query(request)).all().map { row in
            let user = try UserRecords.record(row)
            return UserSummary(
                uid: user.uid,
                isAnonymous: user.isAnonymous,
                state: user.accountState,
                createdAtMilliseconds: user.createdAt.wireMilliseconds,
                lastActivityAtMilliseconds: user.lastActivityAt.wireMilliseconds
            )
        }
        guard users.count > limit else { return UserSummaries(users: users, next: nil) }
        let page = Array(users.prefix(limit))
        let last = page[page.count - 1]
        let at = request.order == .createdAt ? last.createdAtMilliseconds : last.lastActivityAtMilliseconds
        return UserSummaries(users: page, next: UserCursor(atMilliseconds: at, uid: last.uid))
    }

    /// The page's query: `limit + 1` rows, the last only to say whether there is a next page.
    static func query(_ request: ListUsersRequest) -> SQLQueryString {
        let fetched = Int(request.limit) + 1
        switch request.kind {
        case .guests: return range(request, isAnonymous: true, limit: fetched)
        case .members: return range(request, isAnonymous: false, limit: fetched)
        case .all:
            let column = orderColumn(request.order)
            let direction = request.newestFirst ? "DESC" : "ASC"
            return """
                SELECT * FROM (\(range(request, isAnonymous: true, limit: fetched))) AS guests
                UNION ALL
                SELECT * FROM (\(range(request, isAnonymous: false, limit: fetched))) AS members
                ORDER BY \(unsafeRaw: column) \(unsafeRaw: direction), uid \(unsafeRaw: direction)
                LIMIT \(bind: fetched)
                """
        }
    }

    /// The users of one kind after the cursor, in order: an index range (the time bound) with the uid tie-break.
    private static func range(_ request: ListUsersRequest, isAnonymous: Bool, limit: Int) -> SQLQueryString {
        let column = orderColumn(request.order)
        let direction = request.newestFirst ? "DESC" : "ASC"
        var after: SQLQueryString = ""
        if let cursor = request.after {
            let at = SQLTimestamp(Date(wireMilliseconds: cursor.atMilliseconds))
            let (strict, bound) = request.newestFirst ? ("<", "<=") : (">", ">=")
            after = """
                AND \(unsafeRaw: column) \(unsafeRaw: bound) \(at)
                AND (\(unsafeRaw: column) \(unsafeRaw: strict) \(at) OR uid \(unsafeRaw: strict) \(bind: cursor.uid))
                """
        }
        return """
            SELECT \(unsafeRaw: UserRecords.columns) FROM identity_users
            WHERE is_anonymous = \(bind: isAnonymous) \(after)
            ORDER BY \(unsafeRaw: column) \(unsafeRaw: direction), uid \(unsafeRaw: direction) LIMIT \(bind: limit)
            """
    }

    private static func orderColumn(_ order: UserOrder) -> String {
        switch order {
        case .createdAt: "created_at"
        case .lastActivity: "last_activity_at"
        }
    }

    /// `userCounts`: each count an index range (the sweep index, the state index, the created index).
    static func counts(_ sql: any SQLDatabase, since: Date) async throws -> UserCounts {
        func count(_ query: SQLQueryString) async throws -> UInt64 {
            let row = try await sql.raw("SELECT COUNT(*) AS n FROM identity_users WHERE \(query)").first()
            return UInt64(try row?.decode(column: "n", as: Int64.self) ?? 0)
        }
        let since = SQLTimestamp(since)
        return UserCounts(
            guests: try await count("is_anonymous = \(bind: true) AND state = 'active'"),
            members: try await count("is_anonymous = \(bind: false) AND state = 'active'"),
            createdSince: try await count("is_anonymous = \(bind: true) AND created_at >= \(since)")
                + count("is_anonymous = \(bind: false) AND created_at >= \(since)"),
            pendingDeletions: try await count("state = 'deleting'"),
            pendingMerges: try await count("state = 'merging'")
        )
    }
}
