import Foundation
import FoyerAPI
import FoyerClient
import NIOCore

/// The JSON shapes of the API's answers. Tokens never appear in them (they stay in the session file), except in
/// `foyer token`, which exists to print one.
enum Render {
    static func session(_ session: SessionTokens) -> JSONValue {
        .object([
            ("uid", .string(session.uid)),
            ("isAnonymous", .bool(session.isAnonymous)),
            ("sessionId", .string(session.sessionID)),
            ("accessTokenExpiresAt", .time(milliseconds: session.accessTokenExpiresAtMilliseconds)),
            ("refreshTokenExpiresAt", .time(milliseconds: session.refreshTokenExpiresAtMilliseconds)),
        ])
    }

    /// `{"outcome", "uid", "isAnonymous", "sessionId", "mergeReport"?}`, or for a conflict
    /// `{"outcome": "conflict", "otherUid", "ticket", "ticketExpiresAt"}`.
    static func link(_ result: LinkResult) -> JSONValue {
        var members: [(String, JSONValue)] = [("outcome", .string(outcome(result.outcome)))]
        if let session = result.session {
            members += [
                ("uid", .string(session.uid)),
                ("isAnonymous", .bool(session.isAnonymous)),
                ("sessionId", .string(session.sessionID)),
            ]
        }
        if let report = result.mergeReport { members.append(("mergeReport", mergeReport(report))) }
        if let conflict = result.conflict {
            members += [
                ("otherUid", .string(conflict.otherUID)),
                ("ticket", .string(conflict.ticket)),
                ("ticketExpiresAt", .time(conflict.ticketExpiresAt)),
            ]
        }
        return .object(members)
    }

    static func outcome(_ outcome: LinkOutcome) -> String {
        switch outcome {
        case .linked: "linked"
        case .merged: "merged"
        case .discarded: "discarded"
        case .conflict: "conflict"
        }
    }

    static func mergeReport(_ report: MergeReport) -> JSONValue {
        .object([
            ("moved", .uint(report.moved)),
            ("conflicts", .uint(report.conflicts)),
            ("keptAccount", .uint(report.keptAccount)),
            ("keptGuest", .uint(report.keptGuest)),
            ("keptBoth", .uint(report.keptBoth)),
            (
                "listedConflicts",
                .array(
                    report.listedConflicts.map { conflict in
                        .object([
                            ("collection", .string(conflict.collection)),
                            ("key", .string(conflict.key)),
                            ("resolution", .string(resolution(conflict.resolution))),
                            ("derivedKey", .optional(conflict.derivedKey)),
                        ])
                    }
                )
            ),
        ])
    }

    static func resolution(_ resolution: MergeReport.Resolution) -> String {
        switch resolution {
        case .keptAccount: "kept-account"
        case .keptGuest: "kept-guest"
        case .keptBoth: "kept-both"
        }
    }

    /// One counter: `{"counter", "limit", "used", "remaining"}`.
    static func counter(_ counter: CounterUsage) -> JSONValue {
        .object([
            ("counter", .string(counter.counter)),
            ("limit", .uint(counter.limit)),
            ("used", .uint(counter.used)),
            ("remaining", .uint(counter.remaining)),
        ])
    }

    static func usage(_ usage: QuotaUsageResponse) -> [(String, JSONValue)] {
        [
            ("plan", .string(usage.plan)),
            (
                "counters",
                .array(
                    usage.counters.map(Self.counter)
                )
            ),
            ("features", .object(usage.features.map { ($0.feature, .bool($0.enabled)) })),
        ]
    }

    static func user(_ user: UserInfo) -> [(String, JSONValue)] {
        [
            ("uid", .string(user.uid)),
            ("isAnonymous", .bool(user.isAnonymous)),
            ("state", .string(user.state.kind.description)),
            ("createdAt", .time(milliseconds: user.createdAtMilliseconds)),
            ("lastActivityAt", .time(milliseconds: user.lastActivityAtMilliseconds)),
            ("email", .optional(user.email)),
            ("emailVerified", .bool(user.emailVerified)),
            ("hasPassword", .bool(user.hasPassword)),
            (
                "providers",
                .array(
                    user.providers.map { provider in
                        .object([
                            ("provider", .string(provider.provider.description)),
                            ("subject", .string(provider.subject)),
                            ("email", .optional(provider.email)),
                            ("emailTrusted", .bool(provider.emailTrusted)),
                        ])
                    }
                )
            ),
        ]
    }

    /// A document with its value as text when it is UTF-8, else as base64 (`encoding` says which).
    static func document(_ document: StoredDocument) -> JSONValue {
        let (encoding, value) = Self.value(document.value)
        return .object([
            ("collection", .string(document.collection)),
            ("key", .string(document.key)),
            ("version", .uint(document.version)),
            ("updatedAt", .time(microseconds: document.updatedAtMicroseconds)),
            ("encoding", .string(encoding)),
            ("value", .string(value)),
        ])
    }

    static func value(_ buffer: ByteBuffer) -> (encoding: String, value: String) {
        let bytes = Array(buffer.readableBytesView)
        if let text = String(validating: bytes, as: UTF8.self) { return ("utf8", text) }
        return ("base64", Data(bytes).base64EncodedString())
    }

    static func page(_ page: DocumentPage) -> JSONValue {
        .object([
            ("documents", .array(page.documents.map(document))),
            ("nextCursor", .optional(page.nextCursor.map(PageCursor.text))),
        ])
    }

    static func sweep(_ report: SweepReport) -> JSONValue {
        .object([
            ("dryRun", .bool(report.dryRun)),
            ("startedAt", .time(milliseconds: report.startedAtMilliseconds)),
            ("finishedAt", .time(milliseconds: report.finishedAtMilliseconds)),
            ("durationMs", .uint(report.durationMilliseconds)),
            ("expiredGuests", .uint(report.expiredGuests)),
            ("stuckFinished", .uint(report.stuckFinished)),
            ("skipped", .uint(report.skipped)),
            ("recordsPurged", .uint(report.recordsPurged)),
            ("errors", .uint(report.errors)),
            ("lastError", report.lastError.isEmpty ? .null : .string(report.lastError)),
        ])
    }
}
