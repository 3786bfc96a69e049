public import FoyerAPI

extension FoyerClient {
    /// Asks for a password-reset email. The answer is the same whether an account has the address: an account's
    /// address gets a single-use link (valid 10 minutes by default), any other address a notice that no account
    /// uses it.
    ///
    /// The link is bound to this client, as email links are: keep the returned verifier until the link comes back
    /// and pass it to `completePasswordReset` (the server refuses a reset asked for without one, unless the
    /// deployment accepts unbound links).
    @discardableResult
    public func startPasswordReset(
        email: String,
        verifier: EmailLinkVerifier = EmailLinkVerifier()
    ) async throws(FoyerError) -> EmailLinkVerifier {
        _ = try await call(
            GatewayMethods.startPasswordReset,
            PasswordResetStartRequest(email: email, verifierChallenge: verifier.challenge)
        )
        return verifier
    }

    /// Sets a new password with a reset link, and adopts the fresh session it answers: every other session of the
    /// account is signed out, and access tokens issued before stop working.
    ///
    /// - Parameters:
    ///   - token: the token, or the whole link from the email.
    ///   - verifier: the one `startPasswordReset` answered (nil only for a link asked for without one).
    @discardableResult
    public func completePasswordReset(
        token: String,
        verifier: EmailLinkVerifier?,
        newPassword: String
    ) async throws(FoyerError) -> SessionTokens {
        let session = try await call(
            GatewayMethods.completePasswordReset,
            PasswordResetCompleteRequest(
                token: EmailLinkVerifier.token(fromLink: token),
                verifier: verifier?.bytes,
                newPassword: newPassword
            )
        )
        adopt(session)
        return session
    }

    /// Changes (or, for an account that has none yet, sets) the signed-in member's password, and adopts the fresh
    /// session it answers; every other session is signed out.
    ///
    /// - Parameter currentPassword: the password now; nil is accepted only within a few minutes of signing in
    ///   (`recent-sign-in-required` otherwise).
    @discardableResult
    public func changePassword(currentPassword: String?, newPassword: String) async throws(FoyerError) -> SessionTokens
    {
        let session = try await authorized(GatewayMethods.changePassword) { token in
            PasswordChangeRequest(accessToken: token, currentPassword: currentPassword, newPassword: newPassword)
        }
        adopt(session)
        return session
    }

    /// Signs the signed-in member out of every session, this one included, and forgets the session.
    public func signOutEverywhere() async throws(FoyerError) {
        _ = try await authorized(GatewayMethods.signOutEverywhere) { AuthenticatedRequest(accessToken: $0) }
        adopt(nil)
    }

    /// Removes a credential from the signed-in member (within a few minutes of signing in); never the last one
    /// (`last-credential`). Sessions stay signed in.
    public func unlinkCredential(_ credential: CredentialKind) async throws(FoyerError) {
        _ = try await authorized(GatewayMethods.unlinkCredential) {
            UnlinkRequest(accessToken: $0, credential: credential)
        }
    }

    /// Asks to change the signed-in member's email address: a single-use link goes to `newEmail` (the same answer
    /// whether or not another account has it). Needs the current password, or a sign-in within a few minutes.
    ///
    /// The link is bound to this client: keep the returned verifier and pass it to `completeEmailChange`.
    @discardableResult
    public func startEmailChange(
        to newEmail: String,
        currentPassword: String?,
        verifier: EmailLinkVerifier = EmailLinkVerifier()
    ) async throws(FoyerError) -> EmailLinkVerifier {
        _ = try await authorized(GatewayMethods.startEmailChange) { token in
            EmailChangeStartRequest(
                accessToken: token,
                currentPassword: currentPassword,
                newEmail: newEmail,
                verifierChallenge: verifier.challenge
            )
        }
        return verifier
    }

    /// Completes an email change with the link sent to the new address: the account's email (and password) moves
    /// to it, and the old address is told. `emailAlreadyInUse` if another account took the address meanwhile.
    ///
    /// - Parameters:
    ///   - token: the token, or the whole link from the email.
    ///   - verifier: the one `startEmailChange` answered (nil only for a link asked for without one).
    public func completeEmailChange(token: String, verifier: EmailLinkVerifier?) async throws(FoyerError) {
        _ = try await call(
            GatewayMethods.completeEmailChange,
            CompleteEmailChangeRequest(token: EmailLinkVerifier.token(fromLink: token), verifier: verifier?.bytes)
        )
    }
}
