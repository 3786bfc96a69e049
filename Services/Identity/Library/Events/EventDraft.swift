import Foundation
import FoyerAPI

/// An event before it is written: its type and its `data`. `body` makes the JSON that is stored and delivered:
///
/// ```json
/// {"data":{...},"id":"evt_…","sequence":3,"timestamp":"2026-11-25T03:04:05.678Z","type":"user.linked","uid":"…"}
/// ```
///
/// No event carries a password, a token, a secret or an email address (Services/Identity/README.md, "Events").
enum EventDraft: Sendable, Hashable {
    /// A guest (`method` "guest") or a member signing in for the first time ("email-link", "apple", "google"), on
    /// `plan`.
    case userCreated(isAnonymous: Bool, method: String, plan: String)
    /// A guest became permanent by attaching `credential` ("password", "email-link", "apple", "google").
    case userLinked(credential: String)
    /// The guest (the event's uid, `from`) was merged into `to` and deleted; `report` is user-data's merge report
    /// (nil when the caller did not pass one on).
    case userMerged(from: String, to: String, report: FinishMergeRequest?)
    /// The user and everything it owned are gone; `reason` as cleanup records deletions ("user-request", "ttl",
    /// "merge").
    case userDeleted(reason: String)
    /// The plan named in the user's access tokens changed.
    case planChanged(from: String, to: String)

    var type: String {
        switch self {
        case .userCreated: "user.created"
        case .userLinked: "user.linked"
        case .userMerged: "user.merged"
        case .userDeleted: "user.deleted"
        case .planChanged: "plan.changed"
        }
    }

    /// The JSON delivered for this event (keys sorted, no insignificant white space).
    func body(id: String, uid: String, sequence: Int64, occurredAt: Date) throws -> String {
        let envelope: [String: Any] = [
            "id": id, "type": type, "uid": uid, "sequence": Int(sequence),
            "timestamp": Self.timestamp(occurredAt), "data": data,
        ]
        let bytes = try JSONSerialization.data(
            withJSONObject: envelope,
            options: [.sortedKeys, .withoutEscapingSlashes]
        )
        return String(decoding: bytes, as: UTF8.self)
    }

    private var data: [String: Any] {
        switch self {
        case .userCreated(let isAnonymous, let method, let plan):
            return ["isAnonymous": isAnonymous, "method": method, "plan": plan]
        case .userLinked(let credential):
            return ["credential": credential]
        case .userMerged(let from, let to, let report):
            let totals: Any =
                report.map { report in
                    [
                        "moved": Int(clamping: report.moved), "conflicts": Int(clamping: report.conflicts),
                        "keptAccount": Int(clamping: report.keptAccount), "keptGuest": Int(clamping: report.keptGuest),
                        "keptBoth": Int(clamping: report.keptBoth),
                    ]
                } ?? NSNull()
            return ["from": from, "to": to, "report": totals]
        case .userDeleted(let reason):
            return ["reason": reason]
        case .planChanged(let from, let to):
            return ["from": from, "to": to]
        }
    }

    /// RFC 3339 in UTC with milliseconds, as the HTTP edge writes times.
    static func timestamp(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        formatter.timeZone = TimeZone(identifier: "UTC")
        return formatter.string(from: date)
    }
}
