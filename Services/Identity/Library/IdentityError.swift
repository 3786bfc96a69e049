import FoyerAPI
import FoyerRPC
import FoyerWire
import NIOCore

/// The errors identity answers with: `RPCError`s carrying identity statuses. Handlers throw these; the RPC
/// runtime sends them, and turns anything else into `internal` (detail in the log only).
enum IdentityError {
    static func invalidToken(_ message: String = "the token is not valid") -> RPCError {
        RPCError(IdentityStatus.invalidToken, message)
    }
    static func tokenExpired(_ message: String = "the token has expired") -> RPCError {
        RPCError(IdentityStatus.tokenExpired, message)
    }
    static func tokenRevoked(_ message: String = "the token was revoked") -> RPCError {
        RPCError(IdentityStatus.tokenRevoked, message)
    }
    static func tooManyAttempts(
        retryAfter: Duration,
        _ message: String = "too many attempts; try again later"
    )
        -> RPCError
    {
        RPCError(IdentityStatus.tooManyAttempts, message, retryAfterMilliseconds: retryAfter.wholeMilliseconds)
    }
    static func userNotFound() -> RPCError { RPCError(IdentityStatus.userNotFound, "no such user") }
    static func accountNotActive(_ state: String) -> RPCError {
        RPCError(IdentityStatus.accountNotActive, "the account is \(state)")
    }
    static func invalidCredentials() -> RPCError {
        RPCError(IdentityStatus.invalidCredentials, "the email or the password is wrong")
    }

    /// A conflict: the credential belongs to another account. With details only if the caller proved it.
    static func conflict(_ status: RPCStatus, details: ConflictDetails?) -> RPCError {
        let message =
            status == IdentityStatus.credentialAlreadyInUse
            ? "the credential belongs to another account"
            : "the email belongs to another account"
        return RPCError(status, message, details: details?.encoded() ?? ByteBuffer())
    }
}
