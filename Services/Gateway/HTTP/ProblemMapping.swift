import FoyerAPI
import FoyerJSON
import FoyerWire
import NIOCore

/// The one table from binary statuses to HTTP statuses, and the binary details each problem carries.
enum ProblemMapping {
    /// The access-token and credential statuses: 401 with `WWW-Authenticate: Bearer`.
    static let unauthorized: Set = [
        "invalid-token", "token-expired", "token-revoked", "wrong-issuer", "wrong-audience", "unsupported-algorithm",
        "unknown-key-id", "token-not-yet-valid", "refresh-token-reused", "invalid-credentials", "unauthenticated",
    ]
    static let forbidden: Set = [
        "members-only", "wrong-account-kind", "quota-exceeded", "permission-denied", "recent-sign-in-required",
        "counter-reserved", "sign-up-check-required", "sign-up-check-failed",
    ]
    static let notFound: Set = [
        "not-found", "user-not-found", "credential-not-found", "unknown-counter", "unknown-feature", "outbox-disabled",
    ]
    static let conflict: Set = [
        "operation-reused", "version-mismatch", "email-already-in-use", "provider-already-linked", "operation-conflict",
        "ticket-invalid", "last-credential", "idempotency-key-reused", "credential-already-in-use",
    ]
    static let tooMany: Set = ["rate-limited", "signup-rate-limited", "guest-cap-reached", "too-many-attempts"]
    /// The statuses the services answer for a user that is being deleted or merged away, or is gone: identity's
    /// `account-not-active`, guest-quota's `account-not-found`, user-data's `uid-deleted`. For a call made with an
    /// access token they say the token's user is gone or going, which is a 401 like a revoked token (the session
    /// is revoked by then, or is about to be), not a 400 or 404 the app would show as a failed call.
    static let callerGone: Set = ["account-not-active", "account-not-found", "uid-deleted"]
    /// The operations where those statuses may speak of another account than the caller's (the account a link
    /// merges with): they keep their own mapping there.
    static let touchesAnotherAccount: Set = ["linkCredential", "resolveConflict", "completeEmailLink"]

    /// The HTTP status of a binary status named `name`; `forCaller` when it answers a call made with an access
    /// token that concerns only the caller's account (``callerGone``).
    static func httpStatus(name: String, status: RPCStatus, forCaller: Bool = false) -> Int {
        // Not a failure: the operation goes on (the app's hook has not answered); the same request continues it.
        if status == GatewayStatus.operationInProgress { return 202 }
        if unauthorized.contains(name) || (forCaller && callerGone.contains(name)) { return 401 }
        if forbidden.contains(name) { return 403 }
        if notFound.contains(name) { return 404 }
        if conflict.contains(name) { return 409 }
        if name == "value-too-large" { return 413 }
        if tooMany.contains(name) { return 429 }
        if name.hasPrefix("invalid-") { return 400 }
        switch status.retryClass {
        case .notProcessed: return 503
        case .outcomeUnknown: return status == .deadlineExceeded ? 504 : 500
        case .rejected: return 400
        }
    }

    /// The binary error's details as problem members (`counter`, `limit`... for `quota-exceeded`).
    static func detailFields(name: String, details: ByteBuffer) -> [String: JSONValue] {
        switch name {
        case "quota-exceeded":
            guard let quota = try? QuotaExceededDetails(decoding: details) else { return [:] }
            return [
                "counter": .string(quota.usage.counter), "limit": JSONValue(quota.usage.limit),
                "used": JSONValue(quota.usage.used), "remaining": JSONValue(quota.usage.remaining),
                "requested": JSONValue(quota.requested),
            ]
        case "version-mismatch":
            guard let mismatch = try? VersionMismatchDetails(decoding: details) else { return [:] }
            return ["currentVersion": JSONValue(mismatch.currentVersion)]
        case "value-too-large":
            guard let tooLarge = try? ValueTooLargeDetails(decoding: details) else { return [:] }
            return ["valueLimit": JSONValue(tooLarge.limit), "valueSize": JSONValue(tooLarge.size)]
        default:
            guard details.readableBytes > 0, let conflict = try? ConflictDetails(decoding: details) else { return [:] }
            return [
                "otherUid": .string(conflict.otherUID), "ticket": .string(conflict.ticket),
                "ticketExpiresAt": .string(RFC3339.milliseconds(conflict.ticketExpiresAtMilliseconds)),
            ]
        }
    }
}
