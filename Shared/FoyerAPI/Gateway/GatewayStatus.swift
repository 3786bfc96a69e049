public import FoyerWire

/// The gateway's own statuses (`0x35nn`, all "rejected": sending the same request again gets the same answer).
public enum GatewayStatus {
    /// A members-only feature was asked for by a guest; linking a credential lifts it.
    public static let membersOnly = RPCStatus(rawValue: 0x3501)
    /// An operation id or idempotency key came back with a different request.
    public static let operationReused = RPCStatus(rawValue: 0x3502)
    /// The operation needs a guest, and the caller is a member (or the other way round).
    public static let wrongAccountKind = RPCStatus(rawValue: 0x3503)
    /// A retried link-or-merge finished the merge (or discard) its first attempt began, but cannot sign in to the
    /// account: the first attempt spent the email link, ID token or ticket. Sign in to the account.
    public static let signInRequired = RPCStatus(rawValue: 0x3504)
    /// Too many calls of this kind from the client's address (`refresh`, `signIn`, email-link redemption): `aux`
    /// says in milliseconds when one is accepted again. Sending the same request before then gets the same answer.
    public static let rateLimited = RPCStatus(rawValue: 0x3505)

    public static func name(of status: RPCStatus) -> String? {
        switch status {
        case membersOnly: "members-only"
        case operationReused: "operation-reused"
        case wrongAccountKind: "wrong-account-kind"
        case signInRequired: "sign-in-required"
        case rateLimited: "rate-limited"
        default: nil
        }
    }
}
