import Foundation
import FoyerAPI
import FoyerStorage
import SQLKit

extension IdentityCore {
    /// `completeEmailCode`: the code from the newest sign-in email to the address (with `uid`, the newest link
    /// email that user asked for), redeemed on any device. It ends as the email's link would: a session, or (a link
    /// code for an address another account holds) that account with a conflict ticket.
    ///
    /// Only the newest email's code is checked, so a guess is always against one code. The limits are the link's:
    /// the code dies with its row after `verifierFailuresMax` wrong codes (a wrong one answers
    /// `invalid-credentials`, and then even the right one `token-already-used`), lives `lifetime`
    /// (`token-expired`), and spends the row, link included, on first use; an address gets at most `perAddressMax`
    /// emails, so at most `perAddressMax × verifierFailuresMax` guesses, per `perAddressWindow`; the gateway limits
    /// redemptions per source. An address with no code answers `invalid-credentials`, as a wrong code does.
    func completeEmailCode(_ request: CompleteEmailCodeRequest) async throws -> LinkAttempt {
        guard let email = EmailAddress(request.email), EmailCode.isWellFormed(request.code) else {
            throw IdentityError.wrongEmailCode()
        }
        let code = EmailCodeSecret(text: request.code)
        let now = self.now
        let outcome = try await database.transaction { sql in
            try await self.redeem(sql, code: code, email: email, uid: request.uid, now: now)
        }
        return try answer(outcome, redeemed: "email code redeemed", uid: request.uid)
    }

    private func redeem(
        _ sql: any SQLDatabase,
        code: EmailCodeSecret,
        email: EmailAddress,
        uid: String?,
        now: Date
    )
        async throws -> EmailLinkOutcome
    {
        let purpose: EmailLinkKind = uid == nil ? .signIn : .link
        guard let row = try await EmailLinkRecords.loadNewestWithCode(sql, email: email, purpose: purpose, uid: uid),
            let codeHash = row.codeHash
        else {
            throw IdentityError.wrongEmailCode()
        }
        guard row.consumedAt == nil else { throw IdentityError.tokenAlreadyUsed("the email's code was already used") }
        guard now < row.expiresAt else { throw IdentityError.tokenExpired("the email's code has expired") }
        guard code.matches(codeHash, tokenHash: row.tokenHash) else {
            let failures = row.failedAttempts + 1
            try await EmailLinkRecords.recordFailure(
                sql,
                tokenHash: row.tokenHash,
                failures: failures,
                burn: failures >= Int64(configuration.emailLink.verifierFailuresMax),
                now: now
            )
            return .refused(IdentityError.wrongEmailCode())
        }
        try await EmailLinkRecords.consume(sql, tokenHash: row.tokenHash, now: now)
        switch purpose {
        case .link:
            return try await linkEmail(sql, uid: uid ?? "", email: email, now: now)
        default:
            return .session(try await signInByEmail(sql, email: email, now: now))
        }
    }
}
