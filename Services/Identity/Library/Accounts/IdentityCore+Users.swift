import Foundation
import FoyerAPI
import FoyerRPC
import FoyerStorage
import SQLKit

extension IdentityCore {
    /// `recordActivity`: at most one write per interval per user.
    func recordActivity(_ request: IdentityUserRequest) async throws {
        let now = self.now
        guard activity.shouldWrite(uid: request.uid, now: now) else { return }
        do {
            let written = try await database.transaction { sql in
                try await UserRecords.touchActivity(
                    sql,
                    uid: request.uid,
                    now: now,
                    interval: self.configuration.activityRecordInterval
                )
            }
            if !written {
                let exists = try await database.withConnection { sql in
                    try await UserRecords.load(sql, uid: request.uid) != nil
                }
                guard exists else { throw IdentityError.userNotFound() }
            }
        } catch {
            activity.forget(uid: request.uid)
            throw error
        }
    }

    /// `listExpiredGuests`: active guests (not members, not merging or deleting) whose last activity is before the
    /// cutoff, oldest first, after the cursor. Served by the index on (is_anonymous, state, last_activity_at,
    /// uid), so a page costs the same however many accounts there are.
    func listExpiredGuests(_ request: ListExpiredGuestsRequest) async throws -> ExpiredGuests {
        let cutoff = SQLTimestamp(Date(wireMilliseconds: request.idleBeforeMilliseconds))
        let limit = Int(request.limit)
        let rows = try await database.withConnection { sql in
            let after: SQLQueryString
            if let cursor = request.after {
                let at = SQLTimestamp(Date(wireMilliseconds: cursor.lastActivityAtMilliseconds))
                after = "AND (last_activity_at > \(at) OR (last_activity_at = \(at) AND uid > \(bind: cursor.uid)))"
            } else {
                after = ""
            }
            return try await sql.raw(
                """
                SELECT uid, last_activity_at FROM identity_users
                WHERE is_anonymous = \(bind: true) AND state = 'active' AND last_activity_at < \(cutoff) \(after)
                ORDER BY last_activity_at, uid LIMIT \(bind: limit)
                """
            ).all()
        }
        let guests = try rows.map { row in
            ExpiredGuest(
                uid: try row.decode(column: "uid", as: String.self),
                lastActivityAtMilliseconds: try row.decodeDate(column: "last_activity_at").wireMilliseconds
            )
        }
        return ExpiredGuests(guests: guests, next: guests.count == limit ? guests.last : nil)
    }

    /// `getUser`.
    func getUser(_ request: IdentityUserRequest) async throws -> UserInfo {
        try await database.withConnection { sql in
            guard let user = try await UserRecords.load(sql, uid: request.uid) else {
                throw IdentityError.userNotFound()
            }
            let email = try await EmailRecords.load(sql, uid: user.uid)
            let providers = try await ProviderLinkRecords.identities(sql, uid: user.uid)
            return UserInfo(
                uid: user.uid,
                isAnonymous: user.isAnonymous,
                state: user.accountState,
                createdAtMilliseconds: user.createdAt.wireMilliseconds,
                lastActivityAtMilliseconds: user.lastActivityAt.wireMilliseconds,
                email: email?.email,
                emailVerified: email?.verified ?? false,
                hasPassword: email?.passwordHash != nil,
                providers: Array(providers.prefix(IdentityLimits.providersCountMax))
            )
        }
    }
}
