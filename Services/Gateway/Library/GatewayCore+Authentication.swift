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

    /// The caller of delete-everything or of a guest's sign-out, which delete under the client's `operationID`, and
    /// whether that deletion has already finished. `requirement` is checked by identity before a deletion begins
    /// (delete-everything asks a member for a recent sign-in: `guestOrRecentSignIn`).
    ///
    /// The first step of a deletion revokes every session of the user, so a client retrying after a failure
    /// half-way used to be refused and had to leave the rest to cleanup's recovery. A token identity refuses as
    /// revoked is therefore still accepted here when its signature and lifetime check out and its user is
    /// `deleting` under this very operation: the retry finishes the deletion it started, which was past undoing.
    /// When the user is gone and identity confirms this operation deleted it (the first attempt finished but its
    /// answer was lost, or reached another replica), the retry is answered that it is done.
    func authenticateDeletion(
        _ token: String,
        operationID: String,
        requirement: TokenRequirement = .any,
        context: RPCContext
    ) async throws -> (caller: Caller, progress: DeletionProgress) {
        do {
            return (try await authenticateStrictly(token, requirement: requirement, context: context), .notBegun)
        } catch let refusal as RPCError where refusal.status == IdentityStatus.tokenRevoked {
            let caller = try await verifySignature(token)
            let operationID = scopedOperation(operationID, uid: caller.uid)
            let options = CallOptions(deadline: context.deadline)
            do {
                let user = try await identity.call(
                    IdentityMethods.getUser,
                    IdentityUserRequest(uid: caller.uid),
                    options: options
                )
                guard user.state.kind == .deleting, user.state.operationID == operationID else { throw refusal }
                context.logger.info("a retried deletion continues", metadata: ["user.uid": "\(caller.uid)"])
                return (caller, .begun)
            } catch let gone as RPCError where gone.status == IdentityStatus.userNotFound {
                // finishDelete of a finished operation answers success, and user-not-found for any other.
                do {
                    _ = try await identity.call(
                        IdentityMethods.finishDelete,
                        IdentityOperationRequest(uid: caller.uid, operationID: operationID),
                        options: options
                    )
                } catch let other as RPCError where other.status == IdentityStatus.userNotFound {
                    throw refusal
                }
                return (caller, .finished)
            }
        }
    }

    /// Where the deletion under a client's operation id stands, as ``authenticateDeletion(_:operationID:context:)``
    /// found it.
    enum DeletionProgress {
        /// The user is active: the deletion starts with identity's `beginDelete`.
        case notBegun
        /// An earlier attempt passed `beginDelete`: the retry runs the remaining steps, which a replica's or
        /// cleanup's recovery may be finishing at the same moment (each step is idempotent, and finishing a
        /// finished deletion succeeds), never `beginDelete` again, which would answer `user-not-found` once the
        /// other finished first.
        case begun
        /// The user is gone, and identity confirms this operation deleted it.
        case finished
    }

    /// Runs the deletion of `caller` under the client's `operationID` from where it stands; the documents this
    /// call deleted (0 when an earlier attempt or a recovery had deleted them).
    func delete(
        _ caller: Caller,
        operationID: String,
        progress: DeletionProgress,
        options: CallOptions
    ) async throws -> UInt64 {
        let operationID = scopedOperation(operationID, uid: caller.uid)
        switch progress {
        case .finished:
            return 0
        case .begun:
            return try await operations.finishDeletion(
                uid: caller.uid,
                operationID: operationID,
                reason: .userRequest,
                options: options
            )
        case .notBegun:
            return try await operations.deleteEverything(
                uid: caller.uid,
                operationID: operationID,
                reason: .userRequest,
                options: options
            )
        }
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
