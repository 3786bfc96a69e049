public import FoyerWire

/// The gateway's own statuses: `0x35nn` are "rejected" (sending the same request again gets the same answer);
/// `0x25nn` have an outcome still to come.
public enum GatewayStatus {
    /// A merge or a deletion began and waits on the app (its merge or delete hook has not answered 2xx yet): not an
    /// error. The same request again, with the same operation id, continues it and answers its result once the app
    /// has; `aux` says in milliseconds when to ask again. Cleanup finishes it meanwhile if no one asks.
    public static let operationInProgress = RPCStatus(rawValue: 0x2501)
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
    /// `consumeCounter` or `releaseCounter` named a counter the gateway charges itself (`documents`, `bytes`, the
    /// per-collection `documents:<collection>`): a client never moves those directly.
    public static let counterReserved = RPCStatus(rawValue: 0x3506)
    /// The deployment checks guest sign-ups (`--sign-up-check`) and the call carried no proof, or one of another
    /// kind (`guestSignIn` never carries one): sign in with `guestSignInWithCheck` and the proof the message names.
    public static let signUpCheckRequired = RPCStatus(rawValue: 0x3510)
    /// The sign-up check refused the proof (a wrong nonce, an expired, forged or spent challenge, a token the
    /// verifier refused): get a new challenge or token and try again. Nothing was spent.
    public static let signUpCheckFailed = RPCStatus(rawValue: 0x3511)

    public static func name(of status: RPCStatus) -> String? {
        switch status {
        case operationInProgress: "operation-in-progress"
        case membersOnly: "members-only"
        case operationReused: "operation-reused"
        case wrongAccountKind: "wrong-account-kind"
        case signInRequired: "sign-in-required"
        case rateLimited: "rate-limited"
        case counterReserved: "counter-reserved"
        case signUpCheckRequired: "sign-up-check-required"
        case signUpCheckFailed: "sign-up-check-failed"
        default: nil
        }
    }
}
