import Foundation
import FoyerAPI
import FoyerStorage
import SQLKit

extension IdentityCore {
    // MARK: Writing events

    /// Writes `event` of `uid` on `sql` (the transaction of the change it reports) when webhooks are configured;
    /// does nothing otherwise. The user's row must still exist.
    func appendEvent(_ sql: any SQLDatabase, _ event: EventDraft, uid: String, now: Date) async throws {
        guard configuration.webhooks != nil else { return }
        try await EventRecords.append(sql, event, uid: uid, now: now)
    }

    /// `user.created` of a user just inserted: a guest (`method` "guest") or a member's first sign-in.
    func recordCreated(
        _ sql: any SQLDatabase,
        uid: String,
        isAnonymous: Bool,
        method: String,
        now: Date
    ) async throws {
        let plan = isAnonymous ? configuration.guestPlan : configuration.memberPlan
        try await appendEvent(
            sql,
            .userCreated(isAnonymous: isAnonymous, method: method, plan: plan),
            uid: uid,
            now: now
        )
    }

    /// Call right before `UserRecords.makePermanent`: when `uid` is still a guest, `user.linked` with the credential
    /// and, when its plan changes with it, `plan.changed` (its plan, the guest plan unless an operator set one, to
    /// the member plan). Nothing for a user that is permanent already.
    func recordLinking(_ sql: any SQLDatabase, uid: String, credential: String, now: Date) async throws {
        guard configuration.webhooks != nil, let user = try await UserRecords.load(sql, uid: uid), user.isAnonymous
        else { return }
        try await appendEvent(sql, .userLinked(credential: credential), uid: uid, now: now)
        let plan = user.grants.plan ?? configuration.guestPlan
        if plan != configuration.memberPlan {
            try await appendEvent(sql, .planChanged(from: plan, to: configuration.memberPlan), uid: uid, now: now)
        }
    }

    /// `plan.changed` when `plan` is not the plan `user`'s access tokens name now (the plan an operator set, else the
    /// guest or member plan by its kind). Call it in the transaction that sets the plan, before the update.
    func recordPlanChange(_ sql: any SQLDatabase, user: UserRecord, to plan: String, now: Date) async throws {
        let current = user.grants.plan ?? (user.isAnonymous ? configuration.guestPlan : configuration.memberPlan)
        guard current != plan else { return }
        try await appendEvent(sql, .planChanged(from: current, to: plan), uid: user.uid, now: now)
    }

    /// The event of a user that `finish` removes: `user.merged` for a merge, `user.deleted` for a deletion. Without
    /// a reason (`finishDelete`, `finishDeleteBatch`), cleanup's inactivity operations (`ttl-…`) are `ttl` and any
    /// other `user-request`.
    static func finishEvent(_ user: UserRecord, report: FinishMergeRequest?) -> EventDraft {
        switch user.phase {
        case .deleting(_, let reason): .userDeleted(reason: reason.description)
        default: .userMerged(from: user.uid, to: user.mergeInto ?? "", report: report)
        }
    }

    // MARK: Operators

    /// `listEvents`.
    func listEvents(_ request: ListEventsRequest) async throws -> EventPage {
        let fetched = Int(request.limit) + 1
        var events = try await database.withConnection { sql in
            try await EventRecords.list(
                sql,
                uid: request.uid,
                state: request.state,
                before: request.before,
                limit: fetched
            )
        }
        guard events.count == fetched else { return EventPage(events: events) }
        events.removeLast()
        return EventPage(events: events, next: events.last?.position)
    }

    /// `getEvent`.
    func getEvent(_ request: EventRequest) async throws -> EventInfo {
        guard let event = try await database.withConnection({ sql in try await EventRecords.load(sql, id: request.id) })
        else { throw IdentityError.notFound("no such event") }
        return event
    }

    /// `replayEvent`.
    func replayEvent(_ request: EventRequest) async throws -> EventInfo {
        let now = self.now
        guard
            let event = try await database.transaction({ sql in
                try await EventRecords.replay(sql, id: request.id, now: now)
            })
        else { throw IdentityError.notFound("no such event") }
        logger.notice("event replayed", metadata: ["event.id": "\(event.id)", "user.uid": "\(event.uid)"])
        return event
    }
}
