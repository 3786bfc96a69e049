public import FoyerWire

/// guest-quota's own statuses (`0x3201`…: class 3, rejected; the same request gets the same answer).
///
/// Malformed requests (a uid, key or source that does not parse, a body that does not decode) are answered with
/// the runtime's `invalid-argument` (`0x3001`).
public enum GuestQuotaStatus {
    /// The plan named is not configured. Details: none.
    public static let unknownPlan = RPCStatus(rawValue: 0x3201)
    /// The account's plan has no counter of that name. Details: none.
    public static let unknownCounter = RPCStatus(rawValue: 0x3202)
    /// `consume` would take the counter over its limit; nothing was counted. Details: `QuotaExceededDetails`.
    public static let quotaExceeded = RPCStatus(rawValue: 0x3203)
    /// No plan defines a feature of that name. Details: none.
    public static let unknownFeature = RPCStatus(rawValue: 0x3204)
    /// No quota account is open for the uid. Details: none.
    public static let accountNotFound = RPCStatus(rawValue: 0x3205)
    /// The amount of a `consume` is zero, negative or over `GuestQuotaLimits.consumeAmountMax`. Details: none.
    public static let invalidAmount = RPCStatus(rawValue: 0x3206)
    /// The source has used its sign-ups for now. `aux` (`RPCError.retryAfterMilliseconds`): when one is free again.
    public static let signupRateLimited = RPCStatus(rawValue: 0x3207)
    /// The number of live guests has reached the cap. `aux`: the configured wait before trying again.
    public static let guestCapReached = RPCStatus(rawValue: 0x3208)
    /// The op id was already used for another pair of uids, or the idempotency key for another counter or amount,
    /// or the key was refunded (a new consume needs a new key). Details: none.
    public static let opConflict = RPCStatus(rawValue: 0x3209)
    /// A merge whose source and target are the same uid. Details: none.
    public static let mergeIntoSelf = RPCStatus(rawValue: 0x320A)

    /// Every status above, for documentation and logs.
    public static let all: [RPCStatus] = [
        unknownPlan, unknownCounter, quotaExceeded, unknownFeature, accountNotFound, invalidAmount,
        signupRateLimited, guestCapReached, opConflict, mergeIntoSelf,
    ]

    /// The status's name as the README spells it (`quota-exceeded`), or `nil` for another service's status.
    public static func name(of status: RPCStatus) -> String? {
        switch status {
        case unknownPlan: "unknown-plan"
        case unknownCounter: "unknown-counter"
        case quotaExceeded: "quota-exceeded"
        case unknownFeature: "unknown-feature"
        case accountNotFound: "account-not-found"
        case invalidAmount: "invalid-amount"
        case signupRateLimited: "signup-rate-limited"
        case guestCapReached: "guest-cap-reached"
        case opConflict: "op-conflict"
        case mergeIntoSelf: "merge-into-self"
        default: nil
        }
    }
}
