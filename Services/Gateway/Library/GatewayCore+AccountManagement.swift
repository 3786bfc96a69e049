import Foundation
import FoyerAPI
import FoyerRPC
import FoyerWire

extension GatewayCore {
    /// Password reset and change, sign-out everywhere, removing a credential and changing the email address: a
    /// member managing its account.
    ///
    /// Each is limited per client source on top of identity's own limits: starting a reset as identity limits email
    /// links (per source, per address, in all, counted in its database), completing one as email-link redemptions
    /// here, and a change of password as sign-ins here and as failed sign-ins in identity. The calls that revoke
    /// sessions forget what this replica knew of the user, so old tokens are refused on their very next call.
    func registerAccountManagement(on router: inout RPCRouter) {
        router.register(GatewayMethods.startPasswordReset) { request, context in
            try await self.identity.call(
                IdentityMethods.startPasswordReset,
                StartPasswordResetRequest(
                    email: request.email,
                    verifierChallenge: request.verifierChallenge,
                    source: self.sourceAddress(context)
                ),
                options: CallOptions(deadline: context.deadline)
            )
        }
        router.register(GatewayMethods.completePasswordReset) { request, context in
            try self.emailLinkLimit.admit(self.sourceAddress(context), now: self.now)
            let options = CallOptions(deadline: context.deadline)
            let session = try await self.identity.call(
                IdentityMethods.completePasswordReset,
                CompletePasswordResetRequest(
                    token: request.token,
                    verifier: request.verifier,
                    newPassword: request.newPassword,
                    source: self.sourceAddress(context)
                ),
                options: options
            )
            self.sessions.forget(uid: session.uid, now: self.now)
            try await self.ensureQuotaAccount(for: session, options: options)
            return session
        }
        router.register(GatewayMethods.changePassword) { request, context in
            try self.signInLimit.admit(self.sourceAddress(context), now: self.now)
            let caller = try await self.authenticateMember(request.accessToken, context: context)
            let session = try await self.identity.call(
                IdentityMethods.changePassword,
                ChangePasswordRequest(
                    uid: caller.uid,
                    sessionID: caller.sessionID,
                    currentPassword: request.currentPassword,
                    newPassword: request.newPassword,
                    source: self.sourceAddress(context)
                ),
                options: CallOptions(deadline: context.deadline)
            )
            self.sessions.forget(uid: caller.uid, now: self.now)
            return session
        }
        router.register(GatewayMethods.signOutEverywhere) { request, context in
            let caller = try await self.authenticateMember(request.accessToken, context: context)
            _ = try await self.identity.call(
                IdentityMethods.revokeAllSessions,
                IdentityUserRequest(uid: caller.uid),
                options: CallOptions(deadline: context.deadline)
            )
            self.sessions.forget(uid: caller.uid, now: self.now)
            context.logger.info("signed out everywhere", metadata: ["user.uid": "\(caller.uid)"])
            return Empty()
        }
        router.register(GatewayMethods.unlinkCredential) { request, context in
            let caller = try await self.authenticateMember(request.accessToken, context: context)
            return try await self.identity.call(
                IdentityMethods.unlinkCredential,
                UnlinkCredentialRequest(uid: caller.uid, sessionID: caller.sessionID, credential: request.credential),
                options: CallOptions(deadline: context.deadline)
            )
        }
        registerEmailChange(on: &router)
    }

    /// Changing the email address: the link goes to the new address; completing it needs no access token (the link
    /// is the proof, bound to the member who asked), and is limited per source like email-link redemptions.
    func registerEmailChange(on router: inout RPCRouter) {
        router.register(GatewayMethods.startEmailChange) { request, context in
            try self.signInLimit.admit(self.sourceAddress(context), now: self.now)
            let caller = try await self.authenticateMember(request.accessToken, context: context)
            return try await self.identity.call(
                IdentityMethods.startEmailChange,
                StartEmailChangeRequest(
                    uid: caller.uid,
                    sessionID: caller.sessionID,
                    currentPassword: request.currentPassword,
                    newEmail: request.newEmail,
                    verifierChallenge: request.verifierChallenge,
                    source: self.sourceAddress(context)
                ),
                options: CallOptions(deadline: context.deadline)
            )
        }
        router.register(GatewayMethods.completeEmailChange) { request, context in
            try self.emailLinkLimit.admit(self.sourceAddress(context), now: self.now)
            return try await self.identity.call(
                IdentityMethods.completeEmailChange,
                request,
                options: CallOptions(deadline: context.deadline)
            )
        }
    }

    /// The caller, verified by identity (account active, session live, token not older than the not-before), who
    /// must be a member: a guest is answered `members-only` (it has one session and no credential to manage).
    private func authenticateMember(_ token: String, context: RPCContext) async throws -> Caller {
        let caller = try await authenticateStrictly(token, context: context)
        guard !caller.isAnonymous else {
            throw RPCError(GatewayStatus.membersOnly, "account management is for permanent accounts")
        }
        return caller
    }
}
