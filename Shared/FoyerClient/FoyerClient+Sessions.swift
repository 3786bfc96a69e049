public import FoyerAPI

extension FoyerClient {
    /// Signs in as a new guest and adopts its session.
    ///
    /// - Parameters:
    ///   - idempotencyKey: a retry with the same key returns the same guest (the client makes a new one per call;
    ///     pass your own to retry across restarts).
    ///   - loadTestSource: LOAD TESTS ONLY: the address sign-up admission should count instead of the connection's;
    ///     honoured only by a gateway started with `--load-test-sources`, ignored by any other.
    @discardableResult
    public func signInAsGuest(
        idempotencyKey: String = OperationID.make(),
        loadTestSource: String? = nil
    ) async throws(FoyerError) -> SessionTokens {
        let session = try await call(
            GatewayMethods.guestSignIn,
            GuestSignInRequest(idempotencyKey: idempotencyKey, loadTestSource: loadTestSource)
        )
        adopt(session)
        return session
    }

    /// Signs in to an existing account with a credential and adopts its session. An Apple or Google identity
    /// never seen before creates a permanent account.
    ///
    /// The current session, if any, is replaced without being ended; a guest left behind this way is deleted
    /// by the inactivity clean-up. To keep a guest's data, `link` the credential instead.
    @discardableResult
    public func signIn(with credential: Credential) async throws(FoyerError) -> SessionTokens {
        let session = try await call(GatewayMethods.signIn, SignInRequest(credential: credential))
        adopt(session)
        return session
    }

    /// Signs in with an email and password.
    @discardableResult
    public func signIn(email: String, password: String) async throws(FoyerError) -> SessionTokens {
        try await signIn(with: .password(email: email, password: password))
    }

    /// Signs in with an Apple or Google ID token.
    ///
    /// - Parameters:
    ///   - rawNonce: the nonce before hashing (`IDTokenNonce.raw`); the ID token carries its SHA-256.
    ///   - authorizationCode: Sign in with Apple's `authorizationCode` (UTF-8 text of the credential's data), which
    ///     the server exchanges for a token it revokes when the account is deleted (App Store guideline 5.1.1(v)).
    @discardableResult
    public func signIn(
        provider: IdentityProvider,
        idToken: String,
        rawNonce: String?,
        authorizationCode: String? = nil
    ) async throws(FoyerError)
        -> SessionTokens
    {
        try await signIn(
            with: .idToken(
                provider: provider,
                idToken: idToken,
                rawNonce: rawNonce,
                authorizationCode: authorizationCode
            )
        )
    }

    /// Asks for a passwordless email link.
    ///
    /// The answer is the same whether an account has the address. With `.link` the link attaches the address to
    /// the signed-in user (a guest signing up); with `.signIn` it signs in to the account with that address, or
    /// creates one. Keep the returned verifier until the link comes back, then call `completeEmailLink`.
    @discardableResult
    public func sendEmailLink(
        to email: String,
        purpose: EmailLinkPurpose,
        verifier: EmailLinkVerifier = EmailLinkVerifier()
    ) async throws(FoyerError) -> EmailLinkVerifier {
        switch purpose {
        case .link:
            _ = try await authorized(GatewayMethods.startEmailLink) { token in
                EmailLinkStartRequest(
                    purpose: .link,
                    email: email,
                    accessToken: token,
                    verifierChallenge: verifier.challenge
                )
            }
        case .signIn:
            _ = try await call(
                GatewayMethods.startEmailLink,
                EmailLinkStartRequest(
                    purpose: .signIn,
                    email: email,
                    accessToken: nil,
                    verifierChallenge: verifier.challenge
                )
            )
        }
        return verifier
    }

    /// Completes an email link sent with `sendEmailLink`: a `.signIn` link signs in (and is answered as
    /// `linked` with the account's session); a `.link` link is linked to the signed-in user, with the usual
    /// conflict handling.
    ///
    /// - Parameter token: the token, or the whole link from the email.
    @discardableResult
    public func completeEmailLink(
        token: String,
        verifier: EmailLinkVerifier,
        purpose: EmailLinkPurpose,
        onConflict: ConflictChoice = .fail,
        mergePolicy: MergePolicy = .keepAccount,
        operationID: String = OperationID.make()
    ) async throws(FoyerError) -> LinkResult {
        let credential = Credential.emailLink(token: EmailLinkVerifier.token(fromLink: token), verifier: verifier.bytes)
        return try await complete(
            credential,
            purpose: purpose,
            onConflict: onConflict,
            mergePolicy: mergePolicy,
            operationID: operationID
        )
    }

    /// Completes an email by its link or its code: `.signIn` signs in (answered as `linked` with the account's
    /// session), `.link` links to the signed-in user with the usual conflict handling.
    func complete(
        _ credential: Credential,
        purpose: EmailLinkPurpose,
        onConflict: ConflictChoice,
        mergePolicy: MergePolicy,
        operationID: String
    ) async throws(FoyerError) -> LinkResult {
        switch purpose {
        case .signIn:
            return .linked(try await signIn(with: credential))
        case .link:
            return try await link(
                credential,
                onConflict: onConflict,
                mergePolicy: mergePolicy,
                operationID: operationID
            )
        }
    }

    /// Ends the session. A guest's sign-out deletes the guest with all its data (it could never sign in again);
    /// a member's revokes the session only. The client forgets the session either way.
    ///
    /// - Returns: whether the account was deleted (true for a guest).
    @discardableResult
    public func signOut(operationID: String = OperationID.make()) async throws(FoyerError) -> Bool {
        let answer = try await authorized(GatewayMethods.signOut) { token in
            OperationRequest(accessToken: token, operationID: operationID)
        }
        adopt(nil)
        return answer.accountDeleted
    }
}
