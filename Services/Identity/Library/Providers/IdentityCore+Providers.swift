import Foundation
import FoyerAPI
import FoyerRPC
import FoyerStorage
import SQLKit

extension IdentityCore {
    func verifier(for provider: IdentityProvider) throws -> ProviderTokenVerifier {
        let verifier = provider == .apple ? apple : google
        guard let verifier else {
            throw IdentityError.providerNotConfigured(provider)
        }
        return verifier
    }

    /// `signInWithProvider`: the account holding (issuer, subject), created (permanent) on first use. An email in
    /// the token never leads to another account.
    func signInWithProvider(_ request: ProviderSignInRequest) async throws -> SessionTokens {
        let now = self.now
        let identity = try await verifier(for: request.provider).verify(
            request.idToken,
            rawNonce: request.rawNonce,
            now: now
        )
        let tokens = try await database.transaction { sql in
            let uid: String
            let isAnonymous: Bool
            if let owner = try await ProviderLinkRecords.owner(sql, issuer: identity.issuer, subject: identity.subject)
            {
                let user = try await UserRecords.requireActive(sql, uid: owner, lock: true)
                try await ProviderLinkRecords.updateEmail(sql, identity: identity)
                _ = try await UserRecords.touchActivity(
                    sql,
                    uid: owner,
                    now: now,
                    interval: self.configuration.activityRecordInterval
                )
                (uid, isAnonymous) = (owner, user.isAnonymous)
            } else {
                uid = Identifiers.newUID()
                isAnonymous = false
                try await UserRecords.insert(sql, uid: uid, isAnonymous: false, now: now)
                try await self.recordCreated(
                    sql,
                    uid: uid,
                    isAnonymous: false,
                    method: request.provider.description,
                    now: now
                )
                guard try await ProviderLinkRecords.insert(sql, identity: identity, uid: uid, now: now) else {
                    throw IdentityError.changedConcurrently("the identity was claimed concurrently; try again")
                }
            }
            try await self.spendNonce(sql, identity: identity, uid: uid)
            return try await self.startSession(sql, uid: uid, isAnonymous: isAnonymous, now: now)
        }
        logger.info("provider sign-in", metadata: ["user.uid": "\(tokens.uid)", "provider": "\(request.provider)"])
        await keepAppleToken(code: request.authorizationCode, identity: identity, uid: tokens.uid)
        return tokens
    }

    /// `linkProvider`: attaches (issuer, subject) to the user, which becomes permanent. Linked to another account:
    /// that account with a conflict ticket (decided inside the transaction, so the nonce stays spent and the ticket
    /// issued: the token cannot be presented twice, the ticket stands in for it). The user has another identity of
    /// this provider: `provider-already-linked`. Already linked to this user: fresh tokens.
    func linkProvider(_ request: LinkProviderRequest) async throws -> LinkAttempt {
        let now = self.now
        let identity = try await verifier(for: request.provider).verify(
            request.idToken,
            rawNonce: request.rawNonce,
            now: now
        )
        let (outcome, notice) = try await database.transaction { sql -> (LinkAttempt, MailMessage?) in
            let user = try await UserRecords.requireActive(sql, uid: request.uid, lock: true)
            let owner = try await ProviderLinkRecords.owner(sql, issuer: identity.issuer, subject: identity.subject)
            try await self.spendNonce(sql, identity: identity, uid: owner ?? request.uid)
            if let owner, owner != request.uid {
                let details = try await self.tickets.issue(sql, holder: request.uid, account: owner, now: now)
                return (.conflict(details), nil)
            }
            var notice: MailMessage?
            if owner == nil {
                guard try await !ProviderLinkRecords.hasProvider(sql, uid: request.uid, provider: request.provider)
                else {
                    throw IdentityError.providerAlreadyLinked(
                        "the user already has another \(request.provider) identity"
                    )
                }
                guard try await ProviderLinkRecords.insert(sql, identity: identity, uid: request.uid, now: now) else {
                    throw IdentityError.changedConcurrently("the identity was claimed concurrently; try again")
                }
                try await self.recordLinking(
                    sql,
                    uid: request.uid,
                    credential: request.provider.description,
                    now: now
                )
                try await UserRecords.makePermanent(sql, uid: request.uid)
                if !user.isAnonymous {
                    notice = try await self.keepCredentialsNotice(
                        sql,
                        uid: request.uid,
                        "The sign-in method \(CredentialKind(request.provider).noticeName) was added to your account",
                        now: now
                    )
                }
            }
            let tokens = try await self.startSession(sql, uid: request.uid, isAnonymous: false, now: now)
            return (.session(tokens), notice)
        }
        if let notice { await sendNotice(notice, uid: request.uid, "credential-added notice") }
        switch outcome {
        case .session(let tokens):
            logger.info("provider linked", metadata: ["user.uid": "\(tokens.uid)", "provider": "\(request.provider)"])
            await keepAppleToken(code: request.authorizationCode, identity: identity, uid: tokens.uid)
        case .conflict(let details):
            // The Apple identity is the other account's: its token is that account's to revoke.
            await keepAppleToken(code: request.authorizationCode, identity: identity, uid: details.otherUID)
            logger.info(
                "link met an existing account",
                metadata: ["user.uid": "\(request.uid)", "other.uid": "\(details.otherUID)"]
            )
        }
        return outcome
    }

    /// Marks the token used until it expires (its nonce, or without one its `jti` or signed part), or refuses it
    /// with `nonce-already-used` if it was used before: each ID token is accepted once.
    private func spendNonce(_ sql: any SQLDatabase, identity: ProviderIdentity, uid: String) async throws {
        let spent = try await ProviderLinkRecords.spendNonce(
            sql,
            hash: identity.replayHash,
            uid: uid,
            until: identity.expiresAt
        )
        guard spent else {
            throw IdentityError.nonceAlreadyUsed(
                identity.hasNonce ? "the ID token's nonce was already used" : "the ID token was already used"
            )
        }
    }
}
