import Foundation
import FoyerAPI
import FoyerGateway
import FoyerJSON

/// The admin API's JSON (docs/admin-openapi.yaml): times as RFC 3339 in UTC with milliseconds, absent optional
/// members left out.
enum AdminJSON {
    static func counts(_ counts: GatewayAdmin.Counts) -> JSONValue {
        [
            "guests": JSONValue(counts.users.guests), "members": JSONValue(counts.users.members),
            "signupsLastHour": JSONValue(counts.users.createdSince),
            "pendingDeletions": JSONValue(counts.users.pendingDeletions),
            "pendingMerges": JSONValue(counts.users.pendingMerges),
            "liveGuestsMax": JSONValue(counts.quota.liveGuestsMax),
            "quotaDenialsLastHour": JSONValue(counts.quota.denialsLastHour),
            "quotaDenialsByKind": .array(
                counts.quota.denialsByKind.map { ["kind": .string($0.kind), "count": JSONValue($0.count)] }
            ),
            "cleanupRunning": .bool(counts.cleanup.running),
            "lastSweep": counts.cleanup.lastSweep.map(sweep) ?? .null,
        ]
    }

    static func sweep(_ report: SweepReport) -> JSONValue {
        [
            "startedAt": .string(RFC3339.milliseconds(report.startedAtMilliseconds)),
            "finishedAt": .string(RFC3339.milliseconds(report.finishedAtMilliseconds)),
            "dryRun": .bool(report.dryRun), "expiredGuests": JSONValue(report.expiredGuests),
            "stuckFinished": JSONValue(report.stuckFinished), "errors": JSONValue(report.errors),
            "skipped": JSONValue(report.skipped), "recordsPurged": JSONValue(report.recordsPurged),
        ]
    }

    /// A user: identity's record (as `/v1/me` shows it), the live sessions, and the plan, counters and features
    /// (absent when the user has no quota account).
    static func user(_ view: GatewayAdmin.UserView) -> JSONValue {
        guard case .object(var members) = GatewayJSON.user(view.user.user) else { return .null }
        members["liveSessions"] = JSONValue(view.user.liveSessions)
        members["roles"] = .array(view.user.roles.map(JSONValue.string))
        if let usage = view.usage, case .object(let quota) = GatewayJSON.usage(usage) {
            members.merge(quota) { current, _ in current }
        }
        return .object(members)
    }

    /// The `roles` member of a request: an array of at most 16 strings (identity checks each name).
    static func roles(_ object: [String: JSONValue]) throws(HTTPProblem) -> [String] {
        guard case .array(let items)? = object["roles"] else {
            throw .invalidArgument("\"roles\" is required: an array of strings")
        }
        guard items.count <= IdentityLimits.rolesCountMax else {
            throw .invalidArgument("at most \(IdentityLimits.rolesCountMax) roles")
        }
        return try items.map { item throws(HTTPProblem) in
            guard case .string(let role) = item else { throw .invalidArgument("each role must be a string") }
            return role
        }
    }

    static func users(_ page: UserSummaries) -> JSONValue {
        [
            "users": .array(
                page.users.map { user in
                    [
                        "uid": .string(user.uid), "isAnonymous": .bool(user.isAnonymous),
                        "state": .string(user.state.kind.description),
                        "createdAt": .string(RFC3339.milliseconds(user.createdAtMilliseconds)),
                        "lastActivityAt": .string(RFC3339.milliseconds(user.lastActivityAtMilliseconds)),
                    ]
                }
            ),
            "next": page.next.map { .string("\($0.atMilliseconds)-\($0.uid)") } ?? .null,
        ]
    }

    /// The cursor `users` wrote as `next`: the order column's milliseconds, a dash, the uid.
    static func cursor(_ text: String) -> UserCursor? {
        guard let dash = text.firstIndex(of: "-"), let milliseconds = UInt64(text[..<dash]) else { return nil }
        let uid = String(text[text.index(after: dash)...])
        guard !uid.isEmpty, uid.utf8.count <= IdentityLimits.uidByteCountMax else { return nil }
        return UserCursor(atMilliseconds: milliseconds, uid: uid)
    }

    static func outbox(_ page: OutboxMessages) -> JSONValue {
        [
            "messages": .array(
                page.messages.map { message in
                    [
                        "id": .string(message.id), "to": .string(message.recipient),
                        "subject": .string(message.subject), "body": .string(message.body),
                        "createdAt": .string(RFC3339.milliseconds(message.createdAtMilliseconds)),
                    ]
                }
            )
        ]
    }

    static func deletions(_ records: DeletionRecords) -> JSONValue {
        [
            "deletions": .array(
                records.records.map { record in
                    [
                        "pseudonymousID": .string(record.pseudonymousID), "reason": .string(record.reason.description),
                        "deletedAt": .string(RFC3339.milliseconds(record.deletedAtMilliseconds)),
                    ]
                }
            )
        ]
    }

    /// Merges and deletions in progress; `overdue` once one has waited longer than `deadline`.
    static func operations(_ page: StuckAccounts, now: Date, deadline: Duration) -> JSONValue {
        let nowMilliseconds = UInt64(max(0, now.timeIntervalSince1970 * 1000))
        return [
            "operations": .array(
                page.accounts.map { account in
                    let since = account.sinceMilliseconds ?? nowMilliseconds
                    let waited = (nowMilliseconds - min(since, nowMilliseconds)) / 1000
                    var members: [String: JSONValue] = [
                        "uid": .string(account.uid),
                        "kind": .string(account.kind == .merging ? "merge" : "deletion"),
                        "operationId": JSONValue(account.operationID),
                        "since": .string(RFC3339.milliseconds(since)),
                        "waitingSeconds": JSONValue(waited),
                        "overdue": .bool(waited >= UInt64(deadline.components.seconds)),
                    ]
                    if let target = account.mergeInto { members["mergeInto"] = .string(target) }
                    if let policy = account.mergePolicy, account.kind == .merging {
                        members["policy"] = .string(policy.description)
                    }
                    if let reason = account.deletionReason, account.kind == .deleting {
                        members["reason"] = .string(reason.description)
                    }
                    return .object(members)
                }
            )
        ]
    }

    static func key(_ info: AdminKeyInfo) -> JSONValue {
        JSONValue.object([
            "keyID": .string(info.keyID), "name": .string(info.name),
            "createdAt": .string(RFC3339.milliseconds(info.createdAtMilliseconds)),
            "createdBy": .string(info.createdBy),
            "revokedAt": JSONValue(info.revokedAtMilliseconds.map(RFC3339.milliseconds)),
            "lastUsedAt": JSONValue(info.lastUsedAtMilliseconds.map(RFC3339.milliseconds)),
        ]).compacted
    }

    static func actions(_ page: AdminActions) -> JSONValue {
        [
            "actions": .array(
                page.actions.map { action in
                    JSONValue.object([
                        "id": JSONValue(action.id), "at": .string(RFC3339.milliseconds(action.atMilliseconds)),
                        "keyID": .string(action.keyID), "keyName": .string(action.keyName),
                        "action": .string(action.action), "target": JSONValue(action.target),
                        "outcome": JSONValue(action.outcome),
                    ]).compacted
                }
            ),
            "next": page.next.map { JSONValue($0) } ?? .null,
        ]
    }
}
