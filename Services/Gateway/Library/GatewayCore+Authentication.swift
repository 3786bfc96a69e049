import Foundation
import FoyerAPI
import FoyerAccessTokens
import FoyerRPC
import FoyerWire

/// Who is calling, as the access token says.
struct Caller: Sendable {
    let uid: String
    let isAnonymous: Bool
    let sessionID: String
    /// The token's `iat` (0 when identity verified the token and did not say).
    var issuedAt: Int64 = 0
}

extension GatewayCore {
    /// Verifies an access token for a data call: signature, issuer, audience and expiry locally (a forged or expired
    /// token never reaches identity), then that its session is still live, as identity said within the last
    /// `sessionCheckInterval` (see `SessionChecks`): a session revoked anywhere stops working here within that bound.
    func authenticate(_ token: String, context: RPCContext) async throws -> Caller {
        let caller = try await verifySignature(token)
        try await sessions.confirm(
            SessionChecks.Key(sessionID: caller.sessionID, issuedAt: caller.issuedAt),
            uid: caller.uid,
            now: configuration.now
        ) {
            _ = try await identity.call(
                IdentityMethods.verifyAccessToken,
                VerifyAccessTokenRequest(accessToken: token, requirement: .any),
                options: CallOptions(deadline: context.deadline)
            )
        }
        await reportActivity(of: caller, context: context)
        return caller
    }

    /// The token's caller if its signature, issuer, audience and lifetime check out, without asking identity.
    func verifySignature(_ token: String) async throws -> Caller {
        let (unverified, keyID) = try validator.decode(token)
        let key = try await keys.key(id: keyID, now: now)
        let claims = try validator.validate(unverified, key: key, now: now)
        return Caller(
            uid: claims.subject,
            isAnonymous: claims.isAnonymous,
            sessionID: claims.sessionID,
            issuedAt: claims.issuedAt
        )
    }

    /// Verifies an access token with identity, which also checks that the account is active, the session live
    /// and the token not older than the user's not-before. Used before anything that changes an account.
    func authenticateStrictly(
        _ token: String,
        requirement: TokenRequirement = .any,
        context: RPCContext
    ) async throws -> Caller {
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
            context.logger.warning(
                "could not record activity",
                metadata: ["user.uid": "\(caller.uid)", "error": "\(error)"]
            )
        }
    }
}
