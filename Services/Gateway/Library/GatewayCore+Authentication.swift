import Foundation
import FoyerAccessTokens
import FoyerAPI
import FoyerRPC
import FoyerWire

/// Who is calling, as the access token says.
struct Caller: Sendable {
    let uid: String
    let isAnonymous: Bool
    let sessionID: String
}

extension GatewayCore {
    /// Verifies an access token locally (signature, issuer, audience, expiry) against identity's published keys:
    /// no round trip to identity. Used for data calls, where a revoked session can at worst read or write for the
    /// rest of its token's 15 minutes, and a deleted user's writes fail at guest-quota, which has no account.
    func authenticate(_ token: String, context: RPCContext) async throws -> Caller {
        let (unverified, keyID) = try validator.decode(token)
        let key = try await keys.key(id: keyID, now: now)
        let claims = try validator.validate(unverified, key: key, now: now)
        let caller = Caller(uid: claims.subject, isAnonymous: claims.isAnonymous, sessionID: claims.sessionID)
        await reportActivity(of: caller, context: context)
        return caller
    }

    /// Verifies an access token with identity, which also checks that the account is active, the session live
    /// and the token not older than the user's not-before. Used before anything that changes an account.
    func authenticateStrictly(_ token: String, requirement: TokenRequirement = .any, context: RPCContext) async throws -> Caller {
        let verified = try await identity.call(
            IdentityMethods.verifyAccessToken,
            VerifyAccessTokenRequest(accessToken: token, requirement: requirement),
            options: CallOptions(deadline: context.deadline)
        )
        return Caller(uid: verified.uid, isAnonymous: verified.isAnonymous, sessionID: verified.sessionID)
    }

    /// Tells identity the user was active, at most once per interval per user (per replica): one extra call per
    /// user every few minutes keeps the inactivity clean-up honest at no measurable cost. A failure only logs.
    private func reportActivity(of caller: Caller, context: RPCContext) async {
        guard activity.shouldReport(caller.uid, now: now) else { return }
        do {
            _ = try await identity.call(
                IdentityMethods.recordActivity,
                IdentityUserRequest(uid: caller.uid),
                options: CallOptions(deadline: context.deadline)
            )
        } catch {
            context.logger.warning("could not record activity", metadata: ["user.uid": "\(caller.uid)", "error": "\(error)"])
        }
    }
}
