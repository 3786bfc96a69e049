import Foundation
import FoyerAPI
import FoyerCrypto
import FoyerRPC
import FoyerWire
import NIOCore

extension GatewayCore {
    func registerSessions(on router: inout RPCRouter) {
        router.register(GatewayMethods.guestSignIn) { request, context in
            try await self.guestSignIn(request, proof: nil, context: context)
        }
        router.register(GatewayMethods.guestSignInWithCheck) { request, context in
            try await self.guestSignIn(request.signIn, proof: request.proof, context: context)
        }
        router.register(GatewayMethods.signUpChallenge) { _, _ in
            try self.signUpChallenge()
        }
        router.register(GatewayMethods.signIn) { request, context in
            try await self.signIn(request.credential, context: context)
        }
        router.register(GatewayMethods.refresh) { request, context in
            try self.refreshLimit.admit(self.sourceAddress(context), now: self.now)
            return try await self.identity.call(
                IdentityMethods.refreshSession,
                request,
                options: CallOptions(deadline: context.deadline)
            )
        }
        router.register(GatewayMethods.startEmailLink) { request, context in
            try await self.startEmailLink(request, context: context)
        }
        router.register(GatewayMethods.deviceKeyChallenge) { request, context in
            // Each challenge is a row in identity until it is tried or expires: limited per source as sign-ins are.
            try self.signInLimit.admit(self.sourceAddress(context), now: self.now)
            return try await self.identity.call(
                IdentityMethods.createDeviceKeyChallenge,
                request,
                options: CallOptions(deadline: context.deadline)
            )
        }
        router.register(GatewayMethods.registerDeviceKey) { request, context in
            try self.signInLimit.admit(self.sourceAddress(context), now: self.now)
            let caller = try await self.authenticateStrictly(request.accessToken, context: context)
            return try await self.guestOnly {
                try await self.identity.call(
                    IdentityMethods.registerDeviceKey,
                    RegisterDeviceKeyRequest(
                        uid: caller.uid,
                        publicKey: request.publicKey,
                        challenge: request.challenge,
                        signature: request.signature
                    ),
                    options: CallOptions(deadline: context.deadline)
                )
            }
        }
        router.register(GatewayMethods.jwks) { _, _ in
            JWKSResponse(json: try await self.keys.jwksJSON(now: self.now))
        }
    }

    /// A guest sign-in in two calls: admission by source (per-source bucket, and the cap on live guests) opening the
    /// guest's quota account under a uid the gateway makes, then the guest under that uid. The account is opened at
    /// admission so that every guest, writing or not, takes its place under the cap. A retry with the same
    /// idempotency key returns the guest it made before: the account opened for the uid this retry proposed is then
    /// taken away again, as it is when identity fails (the only cases with a third call).
    ///
    /// The deployment's sign-up check (`proof`) comes first, after the key's form: a sign-up it refuses spends
    /// nothing (no admission counted, no account, no guest).
    func guestSignIn(
        _ request: GuestSignInRequest,
        proof: SignUpProof?,
        context: RPCContext
    ) async throws -> SessionTokens {
        // Checked before admission, so a malformed key spends none of the source's sign-up budget.
        guard CreateGuestRequest.isAcceptableIdempotencyKey(request.idempotencyKey) else {
            throw RPCError.invalidArgument(
                "the idempotency key must be 22 to 128 base64url characters (at least 128 random bits)"
            )
        }
        try await passSignUpCheck(proof, idempotencyKey: request.idempotencyKey, context: context)
        let options = CallOptions(deadline: context.deadline)
        var source = sourceAddress(context)
        if configuration.trustClientSourceForLoadTests, let chosen = request.loadTestSource { source = chosen }
        let uid = SecureRandom.bytes(count: 16).map { String(format: "%02x", $0) }.joined()
        _ = try await guestQuota.call(
            GuestQuotaMethods.admitSignup,
            AdmitSignupRequest(source: source, uid: uid),
            options: options
        )
        let session: SessionTokens
        do {
            session = try await identity.call(
                IdentityMethods.createGuest,
                CreateGuestRequest(idempotencyKey: request.idempotencyKey, uid: uid),
                options: options
            )
        } catch {
            await closeUnusedAccount(uid, options: options, context: context)
            throw error
        }
        if session.uid != uid { await closeUnusedAccount(uid, options: options, context: context) }
        return session
    }

    /// Runs the deployment's sign-up check on `proof`, counts its outcome, and throws unless it passed:
    /// `sign-up-check-required` without a proof of the check's kind, `sign-up-check-failed` for a wrong one,
    /// `unavailable` when the check cannot decide (never admitted). Each check first takes a token of the source's
    /// sign-in limit (`rate-limited`), the gateway's own, which spends nothing elsewhere: without it, one source
    /// could have the gateway call a siteverify endpoint, or hash proofs, as fast as it sends bogus ones.
    private func passSignUpCheck(_ proof: SignUpProof?, idempotencyKey: String, context: RPCContext) async throws {
        guard let check = signUpCheck else { return }
        try signInLimit.admit(sourceAddress(context), now: now)
        let outcome = await check.verify(
            proof,
            idempotencyKey: idempotencyKey,
            source: sourceAddress(context),
            now: now
        )
        signUpCheckMetrics?.record(outcome)
        switch outcome {
        case .passed:
            return
        case .missing:
            throw RPCError(
                GatewayStatus.signUpCheckRequired,
                "this deployment checks guest sign-ups (\(check.name)): sign in with guestSignInWithCheck and a proof"
            )
        case .refused(let reason):
            throw RPCError(GatewayStatus.signUpCheckFailed, reason)
        case .unavailable(let reason):
            context.logger.warning("sign-up check could not decide", metadata: ["check": "\(check.name)"])
            throw RPCError(.unavailable, reason)
        }
    }

    /// A proof-of-work challenge, where the deployment's check is proof-of-work.
    func signUpChallenge() throws -> SignUpChallenge {
        guard let check = signUpCheck else {
            throw RPCError(.failedPrecondition, "this deployment does not check guest sign-ups")
        }
        let challenge = try check.challenge(now: now)
        signUpCheckMetrics?.challengeIssued()
        return challenge
    }

    /// Takes away a quota account opened at admission for a guest that was not created under it (best effort: a
    /// failure leaves an empty account, which holds a place under the cap until an operator removes it).
    private func closeUnusedAccount(_ uid: String, options: CallOptions, context: RPCContext) async {
        do {
            _ = try await guestQuota.call(
                GuestQuotaMethods.deleteAll,
                QuotaDeleteAllRequest(uid: uid),
                options: options
            )
        } catch {
            context.logger.warning(
                "could not remove the quota account of a guest not created",
                metadata: ["user.uid": "\(uid)", "error": "\(error)"]
            )
        }
    }

    /// Signs in to an existing account with a credential. An ID token of an identity never seen creates a member,
    /// which gets its quota account here.
    func signIn(_ credential: Credential, context: RPCContext) async throws -> SessionTokens {
        try signInLimit.admit(sourceAddress(context), now: now)
        try admitRedemption(of: credential, context: context)
        let options = CallOptions(deadline: context.deadline)
        let session: SessionTokens
        switch credential {
        case .password(let email, let password):
            session = try await identity.call(
                IdentityMethods.signInWithPassword,
                PasswordSignInRequest(email: email, password: password, source: sourceAddress(context)),
                options: options
            )
        case .emailLink(let token, let verifier):
            let attempt = try await identity.call(
                IdentityMethods.completeEmailLink,
                CompleteEmailLinkRequest(token: token, verifier: verifier, uid: nil),
                options: options
            )
            guard case .session(let tokens) = attempt else {
                // Only a link token can meet another account, and identity refuses those without a user.
                throw RPCError(.internal, "identity answered a sign-in email link with a conflict")
            }
            session = tokens
        case .emailCode(let email, let code):
            let attempt = try await identity.call(
                IdentityMethods.completeEmailCode,
                CompleteEmailCodeRequest(email: email, code: code, uid: nil),
                options: options
            )
            guard case .session(let tokens) = attempt else {
                // Only a link code can meet another account, and identity looks for those by the user only.
                throw RPCError(.internal, "identity answered a sign-in email code with a conflict")
            }
            session = tokens
        case .deviceKey(let keyID, let challenge, let signature):
            session = try await guestOnly {
                try await identity.call(
                    IdentityMethods.signInWithDeviceKey,
                    DeviceKeySignInRequest(keyID: keyID, challenge: challenge, signature: signature),
                    options: options
                )
            }
        case .idToken(let provider, let idToken, let rawNonce, let code):
            session = try await identity.call(
                IdentityMethods.signInWithProvider,
                ProviderSignInRequest(
                    provider: provider,
                    idToken: idToken,
                    rawNonce: rawNonce,
                    authorizationCode: code
                ),
                options: options
            )
        }
        try await ensureQuotaAccount(for: session, options: options)
        return session
    }

    func startEmailLink(_ request: EmailLinkStartRequest, context: RPCContext) async throws -> Empty {
        var uid: String?
        if request.purpose == .link {
            guard let token = request.accessToken else {
                throw RPCError.invalidArgument("a link email needs the access token of the user to link to")
            }
            uid = try await authenticateStrictly(token, context: context).uid
        }
        return try await identity.call(
            IdentityMethods.startEmailLink,
            StartEmailLinkRequest(
                purpose: request.purpose,
                email: request.email,
                uid: uid,
                verifierChallenge: request.verifierChallenge,
                source: sourceAddress(context)
            ),
            options: CallOptions(deadline: context.deadline)
        )
    }

    /// Opens the quota account of a member signed in for the first time (an existing one is left as it is).
    func ensureQuotaAccount(for session: SessionTokens, options: CallOptions) async throws {
        _ = try await guestQuota.call(
            GuestQuotaMethods.openAccount,
            OpenQuotaAccountRequest(
                uid: session.uid,
                plan: session.isAnonymous ? configuration.guestPlan : configuration.memberPlan
            ),
            options: options
        )
    }

    /// Redeeming an email link or code (to sign in or to link) is limited per source on top of everything else: each
    /// try spends a guess at a token or a code, and a wrong verifier or code counts against a real one.
    func admitRedemption(of credential: Credential, context: RPCContext) throws {
        switch credential {
        case .emailLink, .emailCode: try emailLinkLimit.admit(sourceAddress(context), now: now)
        case .password, .idToken, .deviceKey: return
        }
    }

    /// Runs a device-key call, answering identity's `guest-required` (a member's key or caller) as the gateway's
    /// `wrong-account-kind`, as for other guest-only calls.
    func guestOnly<T>(_ call: () async throws -> T) async throws -> T {
        do {
            return try await call()
        } catch let error as RPCError where error.status == IdentityStatus.guestRequired {
            throw RPCError(GatewayStatus.wrongAccountKind, error.message)
        }
    }

    /// The client's address as the socket says (sign-up admission counts per source).
    func sourceAddress(_ context: RPCContext) -> String {
        context.peerAddress?.ipAddress ?? "unknown"
    }
}
