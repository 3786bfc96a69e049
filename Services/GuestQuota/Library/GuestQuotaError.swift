import FoyerAPI
import FoyerRPC
import FoyerWire
import NIOCore

/// Why the store refused a request. Only `rpcError` turns it into a wire status (`GuestQuotaHandlers`).
struct GuestQuotaError: RPCStatusMapping, CustomStringConvertible {
    enum Code: Hashable, Sendable {
        case invalidArgument, unknownPlan, unknownCounter, quotaExceeded, unknownFeature, accountNotFound
        case invalidAmount, signupRateLimited, guestCapReached, opConflict, mergeIntoSelf
    }

    let code: Code
    let message: String
    var details: ByteBuffer = ByteBuffer()
    var retryAfterMilliseconds: UInt32 = 0

    var description: String { "\(code): \(message)" }

    static func invalidArgument(_ message: String) -> Self { Self(code: .invalidArgument, message: message) }
    static func unknownPlan(_ plan: String) -> Self { Self(code: .unknownPlan, message: "no plan named '\(plan)'") }
    static func unknownCounter(_ counter: String, plan: String) -> Self {
        Self(code: .unknownCounter, message: "plan '\(plan)' has no counter '\(counter)'")
    }
    static func unknownFeature(_ feature: String) -> Self {
        Self(code: .unknownFeature, message: "no plan defines a feature '\(feature)'")
    }
    static func accountNotFound(_ uid: String) -> Self {
        Self(code: .accountNotFound, message: "no quota account is open for uid \(uid)")
    }
    static func invalidAmount(_ amount: Int64) -> Self {
        Self(
            code: .invalidAmount,
            message: "amount \(amount) is out of range (1 ... \(GuestQuotaLimits.consumeAmountMax))"
        )
    }
    static func quotaExceeded(_ details: QuotaExceededDetails) -> Self {
        Self(
            code: .quotaExceeded,
            message:
                "\(details.usage.counter): \(details.requested) more would exceed the limit of \(details.usage.limit) (\(details.usage.used) used, \(details.usage.remaining) remaining)",
            details: details.encoded()
        )
    }
    static func signupRateLimited(retryAfterMilliseconds: UInt32) -> Self {
        Self(
            code: .signupRateLimited,
            message: "too many sign-ups from this source; try again in \(retryAfterMilliseconds) ms",
            retryAfterMilliseconds: max(1, retryAfterMilliseconds)
        )
    }
    static func guestCapReached(live: Int64, cap: Int, retryAfterMilliseconds: UInt32) -> Self {
        Self(
            code: .guestCapReached,
            message: "the cap of \(cap) live guests is reached (\(live) live)",
            retryAfterMilliseconds: retryAfterMilliseconds
        )
    }
    static func opConflict(_ message: String) -> Self { Self(code: .opConflict, message: message) }
    static let mergeIntoSelf = Self(code: .mergeIntoSelf, message: "a merge needs two different uids")

    /// The wire form: the one place where guest-quota's refusals become statuses.
    var rpcError: RPCError {
        let status: RPCStatus =
            switch code {
            case .invalidArgument: .invalidArgument
            case .unknownPlan: GuestQuotaStatus.unknownPlan
            case .unknownCounter: GuestQuotaStatus.unknownCounter
            case .quotaExceeded: GuestQuotaStatus.quotaExceeded
            case .unknownFeature: GuestQuotaStatus.unknownFeature
            case .accountNotFound: GuestQuotaStatus.accountNotFound
            case .invalidAmount: GuestQuotaStatus.invalidAmount
            case .signupRateLimited: GuestQuotaStatus.signupRateLimited
            case .guestCapReached: GuestQuotaStatus.guestCapReached
            case .opConflict: GuestQuotaStatus.opConflict
            case .mergeIntoSelf: GuestQuotaStatus.mergeIntoSelf
            }
        return RPCError(status, message, details: details, retryAfterMilliseconds: retryAfterMilliseconds)
    }
}
