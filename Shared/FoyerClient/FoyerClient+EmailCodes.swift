public import FoyerAPI

extension FoyerClient {
    /// Completes a sign-in or link email with the six-digit code it carries, on any device: unlike the link, the
    /// code needs no verifier, only the address it was sent to. A `.signIn` code signs in (and is answered as
    /// `linked` with the account's session); a `.link` code is linked to the signed-in user (the one that asked
    /// for the email), with the usual conflict handling. Redeeming the code spends the email's link too.
    ///
    /// Only the newest email's code works; five wrong codes kill it (`invalidCredentials` for each, then
    /// `tokenAlreadyUsed`), and it lives as long as the link (`tokenExpired` after).
    ///
    /// - Parameter code: the code as the person typed it; spaces are ignored.
    @discardableResult
    public func completeEmailCode(
        _ code: String,
        email: String,
        purpose: EmailLinkPurpose,
        onConflict: ConflictChoice = .fail,
        mergePolicy: MergePolicy = .keepAccount,
        operationID: String = OperationID.make()
    ) async throws(FoyerError) -> LinkResult {
        let credential = Credential.emailCode(email: email, code: code.filter { !$0.isWhitespace })
        return try await complete(
            credential,
            purpose: purpose,
            onConflict: onConflict,
            mergePolicy: mergePolicy,
            operationID: operationID
        )
    }
}
