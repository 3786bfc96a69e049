public import Foundation
public import FoyerAPI
import FoyerCrypto
import FoyerLifecycle
public import FoyerRPC
import FoyerWire
import Logging
public import NIOCore
import Synchronization

/// What an operator can do through the gateway's admin listener: find and list users, revoke their sessions,
/// change their plan, delete them, rotate the signing keys, read the deletion records and the live counts, and
/// manage the admin keys themselves.
///
/// Every operation that acts, or shows a user or deletion records, takes the admin key that asked (from
/// ``authenticate(_:source:deadline:)``) and is written to identity's audit log before it runs: who (the key's
/// id), what, on whom (a uid or a key id, never an email), and then how it ended. An operation whose audit entry cannot be written is not carried out.
/// The log line of each action names the same fields, so it carries no personal data either.
public final class GatewayAdmin: Sendable {
    /// A user as the console shows them: identity's record and live-session count, and guest-quota's plan and
    /// counters (nil when the user has no quota account).
    public struct UserView: Sendable {
        public var user: AdminUserInfo
        public var usage: QuotaUsageResponse?
    }

    /// The live counts of the console's first screen.
    public struct Counts: Sendable {
        public var users: UserCounts
        public var quota: GuestQuotaStats
        public var cleanup: CleanupStatusResponse
    }

    private let core: GatewayCore
    /// Keys identity vouched for, by the SHA-256 of the key: a key in use costs identity one check per interval.
    private let vouched: Mutex<ExpiringTable<[UInt8], AdminKeyInfo>>
    private let checkLimit: SourceRateLimiter

    init(core: GatewayCore) {
        self.core = core
        let configuration = core.configuration
        vouched = Mutex(
            ExpiringTable(lifetime: configuration.adminKeyCheckInterval, capacity: 1_000)
        )
        checkLimit = SourceRateLimiter(
            name: "admin key check",
            limit: configuration.adminKeyCheckLimit,
            sourcesMax: configuration.sourceLimits.sourcesMax
        )
    }

    private var identity: RPCClient { core.identity }
    private var logger: Logger { core.logger }

    // MARK: Authentication

    /// The admin key `key` if identity knows it and it is not revoked; otherwise `unauthenticated`, the same for a
    /// malformed, unknown or revoked key. A key vouched for within `adminKeyCheckInterval` is not checked again; any
    /// other check takes a token of `source`'s admin-key-check budget first (`rate-limited` when it is spent).
    public func authenticate(_ key: String, source: String, deadline: NIODeadline) async throws -> AdminKeyInfo {
        let digest = SHA256.hash(Array(key.utf8))
        let now = core.now
        if let info = vouched.withLock({ $0.value(digest, now: now) }) { return info }
        try checkLimit.admit(source, now: now)
        let info = try await identity.call(
            IdentityMethods.verifyAdminKey,
            VerifyAdminKeyRequest(key: key),
            options: CallOptions(deadline: deadline)
        )
        vouched.withLock { $0.store(info, for: digest, storedAt: now, now: now) }
        return info
    }

    // MARK: Reading

    /// The live counts: guests, members and sign-ups in the last hour (identity), quota denials in the last hour
    /// (guest-quota), accounts being deleted or merged, and the last sweep (cleanup). Not audited: the console
    /// polls it.
    public func counts(deadline: NIODeadline) async throws -> Counts {
        let options = CallOptions(deadline: deadline)
        let since = core.now.addingTimeInterval(-3600)
        async let users = identity.call(
            IdentityMethods.userCounts,
            UserCountsRequest(sinceMilliseconds: UInt64(since.timeIntervalSince1970 * 1000)),
            options: options
        )
        async let quota = core.guestQuota.call(GuestQuotaMethods.stats, Empty(), options: options)
        async let cleanup = core.cleanup.call(CleanupMethods.status, Empty(), options: options)
        return Counts(users: try await users, quota: try await quota, cleanup: try await cleanup)
    }

    /// The user `uid`, or `user-not-found`.
    public func user(uid: String, by caller: AdminKeyInfo, deadline: NIODeadline) async throws -> UserView {
        try await audited("user.view", target: uid, by: caller, deadline: deadline) { options in
            try await self.view(FindUserRequest(by: .uid, value: uid), options: options)
        }
    }

    /// The user whose email (as sign-in normalises it) is `email`, or `user-not-found`. The audit entry names the
    /// uid found, never the email.
    public func user(email: String, by caller: AdminKeyInfo, deadline: NIODeadline) async throws -> UserView {
        let found: UserView
        do {
            found = try await view(FindUserRequest(by: .email, value: email), options: CallOptions(deadline: deadline))
        } catch {
            return try await audited("user.find", target: nil, by: caller, deadline: deadline) { _ in throw error }
        }
        return try await audited("user.view", target: found.user.user.uid, by: caller, deadline: deadline) { _ in
            found
        }
    }

    /// A page of users in the order asked.
    public func users(
        _ request: ListUsersRequest,
        by caller: AdminKeyInfo,
        deadline: NIODeadline
    ) async throws
        -> UserSummaries
    {
        try await audited("user.list", target: nil, by: caller, deadline: deadline) { options in
            try await self.identity.call(IdentityMethods.listUsers, request, options: options)
        }
    }

    /// The newest deletion records (pseudonymous ids, reasons, times), at most `limit`.
    public func deletions(
        limit: UInt64,
        by caller: AdminKeyInfo,
        deadline: NIODeadline
    ) async throws
        -> DeletionRecords
    {
        try await audited("deletion.list", target: nil, by: caller, deadline: deadline) { options in
            try await self.core.cleanup.call(
                CleanupMethods.listDeletions,
                ListDeletionsRequest(limit: limit),
                options: options
            )
        }
    }

    /// The merges and deletions that have begun and not finished, the longest-waiting first, at most `limit`: those
    /// past `olderThanSeconds` wait on a service or on the app's hook (cleanup retries them every sweep). Not
    /// audited, as the audit log is not: it shows uids and times only, and the console reads it at every refresh.
    public func operationsInProgress(
        olderThanSeconds: UInt64,
        limit: UInt32,
        deadline: NIODeadline
    ) async throws -> StuckAccounts {
        try await identity.call(
            IdentityMethods.listStuckAccounts,
            ListStuckAccountsRequest(olderThanSeconds: olderThanSeconds, limit: limit),
            options: CallOptions(deadline: deadline)
        )
    }

    /// The newest messages of identity's outbox (local mode: what it would have mailed, links and all), to one
    /// address or to all, at most `limit`. Audited: the messages hold sign-in links.
    public func outbox(
        to recipient: String?,
        limit: UInt32,
        by caller: AdminKeyInfo,
        deadline: NIODeadline
    ) async throws -> OutboxMessages {
        try await audited("outbox.list", target: nil, by: caller, deadline: deadline) { options in
            try await self.identity.call(
                IdentityMethods.listOutbox,
                ListOutboxRequest(recipient: recipient, limit: limit),
                options: options
            )
        }
    }

    /// The gateway's clock.
    public var now: Date { core.now }

    /// How long an operation may wait on the app before it is overdue (the hooks' deadline; a day without hooks).
    public var operationDeadline: Duration { core.configuration.appHooks?.deadline ?? .seconds(86_400) }

    /// A page of the audit log, newest first. Not audited itself: it shows no personal data (targets are uids),
    /// and the console reads it after every action.
    public func auditLog(_ request: ListAdminActionsRequest, deadline: NIODeadline) async throws -> AdminActions {
        try await identity.call(IdentityMethods.listAdminActions, request, options: CallOptions(deadline: deadline))
    }

    // MARK: Acting on a user

    /// Revokes every session of `uid`: its refresh tokens stop working at once, its access tokens at this replica
    /// at once and at the others within the session-check interval.
    public func revokeSessions(uid: String, by caller: AdminKeyInfo, deadline: NIODeadline) async throws {
        try await audited("user.revoke-sessions", target: uid, by: caller, deadline: deadline) { options in
            _ = try await self.identity.call(
                IdentityMethods.revokeAllSessions,
                IdentityUserRequest(uid: uid),
                options: options
            )
            self.core.sessions.forget(uid: uid, now: self.core.now)
        }
    }

    /// Moves `uid` to `plan` (a plan guest-quota knows): guest-quota's limits and features first, then the plan its
    /// access tokens name from the next one on (identity). A retry after a failure between the two does both again.
    public func changePlan(
        uid: String,
        plan: String,
        by caller: AdminKeyInfo,
        deadline: NIODeadline
    ) async throws
        -> ChangePlanResponse
    {
        try await audited("user.change-plan", target: uid, by: caller, deadline: deadline) { options in
            let changed = try await self.core.guestQuota.call(
                GuestQuotaMethods.changePlan,
                ChangePlanRequest(uid: uid, plan: plan),
                options: options
            )
            _ = try await self.identity.call(
                IdentityMethods.setUserPlan,
                SetUserPlanRequest(uid: uid, plan: plan),
                options: options
            )
            return changed
        }
    }

    /// Replaces the app-defined roles of `uid`, named in its access tokens from the next one on.
    public func setRoles(uid: String, roles: [String], by caller: AdminKeyInfo, deadline: NIODeadline) async throws {
        try await audited("user.set-roles", target: uid, by: caller, deadline: deadline) { options in
            _ = try await self.identity.call(
                IdentityMethods.setUserRoles,
                SetUserRolesRequest(uid: uid, roles: roles),
                options: options
            )
        }
    }

    /// Deletes `uid` with everything it owns: the delete-everything saga. A user whose deletion has begun already
    /// (and stopped part-way) is finished under that deletion's operation. Returns the documents deleted.
    public func delete(uid: String, by caller: AdminKeyInfo, deadline: NIODeadline) async throws -> UInt64 {
        try await audited("user.delete", target: uid, by: caller, deadline: deadline) { options in
            let state = try await self.identity.call(
                IdentityMethods.getUser,
                IdentityUserRequest(uid: uid),
                options: options
            ).state
            defer { self.core.sessions.forget(uid: uid, now: self.core.now) }
            let result =
                state.kind == .deleting
                ? try await self.core.sagas.resume(state, options: options)
                : try await self.core.sagas.deleteEverything(
                    uid: uid,
                    operationID: "admin-delete-" + UUID().uuidString.lowercased(),
                    reason: .userRequest,
                    options: options
                )
            guard case .deleted(let documents) = result else { return 0 }
            return documents
        }
    }

    // MARK: Keys

    /// Rotates the access-token signing key; returns the new key's id.
    public func rotateSigningKey(by caller: AdminKeyInfo, deadline: NIODeadline) async throws -> String {
        try await audited("signing-key.rotate", target: nil, by: caller, deadline: deadline) { options in
            try await self.identity.call(IdentityMethods.rotateSigningKey, Empty(), options: options).keyID
        }
    }

    /// Every admin key, newest first (never the keys themselves: identity keeps only their hashes). Not audited,
    /// like the audit log.
    public func adminKeys(deadline: NIODeadline) async throws -> AdminKeys {
        try await identity.call(IdentityMethods.listAdminKeys, Empty(), options: CallOptions(deadline: deadline))
    }

    /// A new admin key named `name`, made by `caller`: the answer holds the key, which exists nowhere else.
    public func createAdminKey(
        name: String,
        by caller: AdminKeyInfo,
        deadline: NIODeadline
    ) async throws
        -> AdminKeyCreated
    {
        try await audited("admin-key.create", target: nil, by: caller, deadline: deadline) { options in
            let created = try await self.identity.call(
                IdentityMethods.createAdminKey,
                CreateAdminKeyRequest(name: name, createdBy: caller.keyID),
                options: options
            )
            self.logger.notice("admin key created", metadata: ["admin.key.created": "\(created.info.keyID)"])
            return created
        }
    }

    /// Revokes the admin key `keyID`: at this replica at once, at the others within `adminKeyCheckInterval`.
    public func revokeAdminKey(
        _ keyID: String,
        by caller: AdminKeyInfo,
        deadline: NIODeadline
    ) async throws
        -> AdminKeyInfo
    {
        try await audited("admin-key.revoke", target: keyID, by: caller, deadline: deadline) { options in
            let info = try await self.identity.call(
                IdentityMethods.revokeAdminKey,
                AdminKeyRequest(keyID: keyID),
                options: options
            )
            self.vouched.withLock { table in
                table.removeAll { $0.keyID == keyID }
            }
            return info
        }
    }

    // MARK: Events to the app's backend

    /// A page of identity's events (webhook outbox), newest first. Audited: events name uids.
    public func events(
        _ request: ListEventsRequest,
        by caller: AdminKeyInfo,
        deadline: NIODeadline
    ) async throws -> EventPage {
        try await audited("event.list", target: request.uid, by: caller, deadline: deadline) { options in
            try await self.identity.call(IdentityMethods.listEvents, request, options: options)
        }
    }

    /// One event with its delivery state and body.
    public func event(id: String, by caller: AdminKeyInfo, deadline: NIODeadline) async throws -> EventInfo {
        try await audited("event.view", target: id, by: caller, deadline: deadline) { options in
            try await self.identity.call(IdentityMethods.getEvent, EventRequest(id: id), options: options)
        }
    }

    /// Sends an event again (same id): pending, due now, its attempts counted from zero.
    public func replayEvent(id: String, by caller: AdminKeyInfo, deadline: NIODeadline) async throws -> EventInfo {
        try await audited("event.replay", target: id, by: caller, deadline: deadline) { options in
            try await self.identity.call(IdentityMethods.replayEvent, EventRequest(id: id), options: options)
        }
    }

    // MARK: The audit log

    /// Runs `body` between the audit entry's beginning and its end. If the entry cannot be begun, `body` does not
    /// run; if it cannot be ended, the entry stays without an outcome (the action may or may not have happened) and
    /// the failure is logged.
    private func audited<Answer: Sendable>(
        _ action: String,
        target: String?,
        by caller: AdminKeyInfo,
        deadline: NIODeadline,
        _ body: @Sendable (CallOptions) async throws -> Answer
    ) async throws -> Answer {
        let options = CallOptions(deadline: deadline)
        let entry = try await identity.call(
            IdentityMethods.beginAdminAction,
            AdminActionStart(keyID: caller.keyID, action: action, target: target),
            options: options
        )
        let outcome: String
        let result: Result<Answer, any Error>
        do {
            result = .success(try await body(options))
            outcome = "ok"
        } catch let error as RPCError {
            result = .failure(error)
            outcome = FoyerStatusNames.name(of: error.status)
        } catch {
            result = .failure(error)
            outcome = "internal"
        }
        var metadata: Logger.Metadata = [
            "admin.key": "\(caller.keyID)", "admin.action": "\(action)", "admin.outcome": "\(outcome)",
            "admin.audit.id": "\(entry.id)",
        ]
        if let target { metadata["admin.target"] = "\(target)" }
        logger.notice("admin action", metadata: metadata)
        do {
            // Its own time limit: the action may have used up the request's.
            _ = try await identity.call(
                IdentityMethods.endAdminAction,
                AdminActionEnd(id: entry.id, outcome: outcome),
                options: CallOptions(timeout: .seconds(5))
            )
        } catch {
            logger.error(
                "an admin action's outcome was not written to the audit log",
                metadata: ["admin.audit.id": "\(entry.id)", "error": "\(error)"]
            )
        }
        return try result.get()
    }

    private func view(_ request: FindUserRequest, options: CallOptions) async throws -> UserView {
        let user = try await identity.call(IdentityMethods.findUser, request, options: options)
        let usage: QuotaUsageResponse?
        do {
            usage = try await core.guestQuota.call(
                GuestQuotaMethods.usage,
                QuotaUsageRequest(uid: user.user.uid),
                options: options
            )
        } catch let error as RPCError where error.status == GuestQuotaStatus.accountNotFound {
            usage = nil
        }
        return UserView(user: user, usage: usage)
    }
}
