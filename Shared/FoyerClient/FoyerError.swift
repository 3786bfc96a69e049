public import Foundation
public import FoyerAPI
public import FoyerRPC
public import FoyerWire
import NIOCore

/// Every error `FoyerClient` throws: the wire status the gateway (or a service behind it) answered, or one of a
/// few client-side conditions, with a message and, where the status carries them, typed details.
///
/// Compare with the static constants: equality looks at the code only, so `error == .quotaExceeded` holds
/// whatever the counts were.
///
/// ```swift
/// do {
///     try await client.put("notes", "n21", "hello")
/// } catch let error where error == .quotaExceeded {
///     print("\(error.quotaExceeded!.remaining) of \(error.quotaExceeded!.limit) left")
/// }
/// ```
public struct FoyerError: Error, Hashable, Sendable, CustomStringConvertible {
    private enum Code: Hashable, Sendable {
        /// A status answered by the gateway or a service (or the RPC runtime on this side).
        case status(UInt16)
        /// The client holds no session, so it cannot make a call that acts for a user.
        case notSignedIn
        /// A session file could not be read or written.
        case sessionStorage
        /// An argument was refused before anything was sent.
        case invalidInput
    }

    private let code: Code
    /// What went wrong, safe to show a developer (never a token or a password).
    public let message: String
    /// The server's retry-after hint, if it sent one.
    public let retryAfter: Duration?
    /// With `quota-exceeded`: which counter refused, its limit, use and what remains.
    public let quotaExceeded: QuotaExceeded?
    /// With `version-mismatch`: the document's version now (0 when it does not exist).
    public let currentVersion: UInt64?
    /// With `value-too-large`: the server's cap on a value, in bytes.
    public let valueByteCountLimit: UInt64?

    private init(
        _ code: Code,
        _ message: String,
        retryAfter: Duration? = nil,
        quotaExceeded: QuotaExceeded? = nil,
        currentVersion: UInt64? = nil,
        valueByteCountLimit: UInt64? = nil
    ) {
        self.code = code
        self.message = message
        self.retryAfter = retryAfter
        self.quotaExceeded = quotaExceeded
        self.currentVersion = currentVersion
        self.valueByteCountLimit = valueByteCountLimit
    }

    public static func == (lhs: FoyerError, rhs: FoyerError) -> Bool { lhs.code == rhs.code }
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }

    /// The wire status, or `nil` for a client-side error (`not-signed-in`, `session-storage`, `invalid-input`).
    public var status: RPCStatus? {
        if case .status(let raw) = code { return RPCStatus(rawValue: raw) }
        return nil
    }

    /// The status's name as the services spell it (`quota-exceeded`, `token-expired`, `not-signed-in`...).
    public var name: String {
        switch code {
        case .status(let raw): FoyerStatusNames.name(of: RPCStatus(rawValue: raw))
        case .notSignedIn: "not-signed-in"
        case .sessionStorage: "session-storage"
        case .invalidInput: "invalid-input"
        }
    }

    public var description: String { "\(name): \(message)" }
}

// MARK: - Typed details

extension FoyerError {
    /// The details of `quota-exceeded`, so an app can show "0 of 20 left" and an upgrade prompt.
    public struct QuotaExceeded: Hashable, Sendable {
        /// The counter that refused (`documents`, `bytes`).
        public var counter: String
        public var limit: UInt64
        public var used: UInt64
        public var remaining: UInt64
        /// What the refused write asked for.
        public var requested: UInt64

        public init(_ details: QuotaExceededDetails) {
            counter = details.usage.counter
            limit = details.usage.limit
            used = details.usage.used
            remaining = details.usage.remaining
            requested = details.requested
        }
    }
}

// MARK: - Building

extension FoyerError {
    /// The error for an `RPCError`, with the details its status carries decoded.
    public init(_ error: RPCError) {
        let retryAfter: Duration? =
            error.retryAfterMilliseconds > 0 ? .milliseconds(Int64(error.retryAfterMilliseconds)) : nil
        var quota: QuotaExceeded?
        var currentVersion: UInt64?
        var valueLimit: UInt64?
        if error.details.readableBytes > 0 {
            switch error.status {
            case GuestQuotaStatus.quotaExceeded:
                quota = (try? QuotaExceededDetails(decoding: error.details)).map(QuotaExceeded.init)
            case UserDataStatus.versionMismatch:
                currentVersion = (try? VersionMismatchDetails(decoding: error.details))?.currentVersion
            case UserDataStatus.valueTooLarge:
                valueLimit = (try? ValueTooLargeDetails(decoding: error.details))?.limit
            default:
                break
            }
        }
        self.init(
            .status(error.status.rawValue),
            error.message,
            retryAfter: retryAfter,
            quotaExceeded: quota,
            currentVersion: currentVersion,
            valueByteCountLimit: valueLimit
        )
    }

    /// Any error as a `FoyerError`: an `RPCError` keeps its status; anything else becomes `internal`.
    public init(_ error: any Error) {
        switch error {
        case let error as FoyerError: self = error
        case let error as RPCError: self.init(error)
        case is CancellationError: self.init(RPCError.cancelled())
        default: self.init(RPCError(.internal, "\(error)"))
        }
    }

    /// A status with a message (for statuses a client decides itself, such as `cancelled`).
    public init(status: RPCStatus, message: String) {
        self.init(RPCError(status, message))
    }

    public static func notSignedIn(_ message: String) -> FoyerError { FoyerError(.notSignedIn, message) }
    public static func sessionStorage(_ message: String) -> FoyerError { FoyerError(.sessionStorage, message) }
    public static func invalidInput(_ message: String) -> FoyerError { FoyerError(.invalidInput, message) }
}

// MARK: - Constants to compare with

extension FoyerError {
    private static func status(_ status: RPCStatus) -> FoyerError { FoyerError(.status(status.rawValue), "") }

    // Client side
    /// The client holds no session (sign in first).
    public static let notSignedIn = notSignedIn("")
    /// A session file could not be read or written.
    public static let sessionStorage = sessionStorage("")
    /// An argument was refused before anything was sent.
    public static let invalidInput = invalidInput("")

    // Runtime
    public static let unavailable = status(.unavailable)
    public static let overloaded = status(.overloaded)
    public static let `internal` = status(.internal)
    public static let deadlineExceeded = status(.deadlineExceeded)
    public static let cancelled = status(.cancelled)
    public static let connectionLost = status(.connectionLost)
    public static let invalidArgument = status(.invalidArgument)
    public static let unimplemented = status(.unimplemented)
    public static let unauthenticated = status(.unauthenticated)
    public static let permissionDenied = status(.permissionDenied)
    public static let notFound = status(.notFound)

    // Tokens and sessions
    public static let invalidToken = status(IdentityStatus.invalidToken)
    public static let tokenExpired = status(IdentityStatus.tokenExpired)
    public static let tokenRevoked = status(IdentityStatus.tokenRevoked)
    public static let refreshTokenReused = status(IdentityStatus.refreshTokenReused)
    public static let memberRequired = status(IdentityStatus.memberRequired)
    public static let guestRequired = status(IdentityStatus.guestRequired)

    // Credentials
    public static let invalidCredentials = status(IdentityStatus.invalidCredentials)
    public static let tooManyAttempts = status(IdentityStatus.tooManyAttempts)
    public static let invalidEmail = status(IdentityStatus.invalidEmail)
    public static let weakPassword = status(IdentityStatus.weakPassword)
    public static let tokenAlreadyUsed = status(IdentityStatus.tokenAlreadyUsed)
    public static let verifierMismatch = status(IdentityStatus.verifierMismatch)
    public static let nonceMismatch = status(IdentityStatus.nonceMismatch)
    public static let nonceAlreadyUsed = status(IdentityStatus.nonceAlreadyUsed)
    public static let providerNotConfigured = status(IdentityStatus.providerNotConfigured)
    public static let passwordHashingBusy = status(IdentityStatus.passwordHashingBusy)

    // Linking
    public static let credentialAlreadyInUse = status(IdentityStatus.credentialAlreadyInUse)
    public static let emailAlreadyInUse = status(IdentityStatus.emailAlreadyInUse)
    public static let providerAlreadyLinked = status(IdentityStatus.providerAlreadyLinked)
    public static let ticketInvalid = status(IdentityStatus.ticketInvalid)
    public static let userNotFound = status(IdentityStatus.userNotFound)
    public static let accountNotActive = status(IdentityStatus.accountNotActive)
    public static let outboxDisabled = status(IdentityStatus.outboxDisabled)
    /// A deletion could not revoke the user's Sign in with Apple token yet (Apple unreachable): the account is
    /// signed out everywhere and the deletion is finished later; sending the call again is safe.
    public static let appleUnavailable = status(IdentityStatus.appleUnavailable)

    // Account management
    public static let recentSignInRequired = status(IdentityStatus.recentSignInRequired)
    public static let lastCredential = status(IdentityStatus.lastCredential)
    public static let credentialNotFound = status(IdentityStatus.credentialNotFound)

    // Quotas and admission
    public static let quotaExceeded = status(GuestQuotaStatus.quotaExceeded)
    public static let signupRateLimited = status(GuestQuotaStatus.signupRateLimited)
    public static let guestCapReached = status(GuestQuotaStatus.guestCapReached)
    public static let quotaAccountNotFound = status(GuestQuotaStatus.accountNotFound)
    public static let unknownCounter = status(GuestQuotaStatus.unknownCounter)
    public static let invalidAmount = status(GuestQuotaStatus.invalidAmount)

    // Documents
    public static let invalidKey = status(UserDataStatus.invalidKey)
    public static let invalidCollection = status(UserDataStatus.invalidCollection)
    public static let valueTooLarge = status(UserDataStatus.valueTooLarge)
    public static let versionMismatch = status(UserDataStatus.versionMismatch)
    public static let invalidCursor = status(UserDataStatus.invalidCursor)
    public static let uidMerged = status(UserDataStatus.uidMerged)
    public static let uidDeleted = status(UserDataStatus.uidDeleted)

    // Gateway
    public static let membersOnly = status(GatewayStatus.membersOnly)
    public static let operationReused = status(GatewayStatus.operationReused)
    public static let wrongAccountKind = status(GatewayStatus.wrongAccountKind)
    public static let signInRequired = status(GatewayStatus.signInRequired)
    public static let rateLimited = status(GatewayStatus.rateLimited)
    /// A merge or deletion waits on the app's hook: call again with the same operation id (`retryAfter` says when).
    public static let operationInProgress = status(GatewayStatus.operationInProgress)
    /// `consume` or `release` named a counter the gateway charges itself (`documents`, `bytes`,
    /// `documents:<collection>`).
    public static let counterReserved = status(GatewayStatus.counterReserved)
    /// The deployment checks guest sign-ups and the sign-in carried no proof: `signInAsGuest(signUpCheck:)`.
    public static let signUpCheckRequired = status(GatewayStatus.signUpCheckRequired)
    /// The sign-up check refused the proof (a spent, expired or unsolved challenge, a refused token): get a new one.
    public static let signUpCheckFailed = status(GatewayStatus.signUpCheckFailed)
}

// MARK: - Kinds

extension FoyerError {
    /// The session's tokens no longer work (malformed, expired, revoked, reused refresh token, user gone):
    /// sign in again.
    public var isAuthenticationFailure: Bool {
        [.unauthenticated, .invalidToken, .tokenExpired, .tokenRevoked, .refreshTokenReused, .notSignedIn]
            .contains(self)
    }

    /// A limit refused the call for now; `retryAfter` says when to try again, if the server said.
    public var isRateLimited: Bool {
        [.signupRateLimited, .guestCapReached, .tooManyAttempts, .passwordHashingBusy, .overloaded, .rateLimited]
            .contains(self)
            || status == .resourceExhausted
    }

    /// The gateway or a service could not be reached or could not serve the call; nothing was done.
    public var isUnavailable: Bool {
        status?.retryClass == .notProcessed
    }

    /// Whether the call may have had an effect although it failed.
    public var outcomeUnknown: Bool {
        status?.retryClass == .outcomeUnknown
    }
}

extension Date {
    init(milliseconds: UInt64) {
        self.init(timeIntervalSince1970: TimeInterval(milliseconds) / 1000)
    }

    var millisecondsSince1970: UInt64 {
        UInt64(max(0, (timeIntervalSince1970 * 1000).rounded(.down)))
    }
}
