import Foundation
import FoyerAPI
import FoyerCrypto
import FoyerRPC
import FoyerWire
import NIOCore

extension GatewayCore {
    func registerAccounts(on router: inout RPCRouter) {
        router.register(GatewayMethods.me) { request, context in
            let caller = try await self.authenticate(request.accessToken, context: context)
            let options = CallOptions(deadline: context.deadline)
            async let user = self.identity.call(
                IdentityMethods.getUser,
                IdentityUserRequest(uid: caller.uid),
                options: options
            )
            async let usage = self.guestQuota.call(
                GuestQuotaMethods.usage,
                QuotaUsageRequest(uid: caller.uid),
                options: options
            )
            return MeResponse(user: try await user, usage: try await usage)
        }
        router.register(GatewayMethods.quota) { request, context in
            let caller = try await self.authenticate(request.accessToken, context: context)
            return try await self.guestQuota.call(
                GuestQuotaMethods.usage,
                QuotaUsageRequest(uid: caller.uid),
                options: CallOptions(deadline: context.deadline)
            )
        }
        router.register(GatewayMethods.link) { request, context in
            try await self.link(request, context: context)
        }
        router.register(GatewayMethods.resolveConflict) { request, context in
            try await self.resolveConflict(request, context: context)
        }
        router.register(GatewayMethods.deleteAccount) { request, context in
            try await self.remembering(
                request.operationID,
                token: request.accessToken,
                fingerprint: ByteBuffer(string: "delete"),
                context: context
            ) {
                let (caller, finished) = try await self.authenticateDeletion(
                    request.accessToken,
                    operationID: request.operationID,
                    context: context
                )
                if finished { return DeletionReport(documentsDeleted: 0) }
                let deleted = try await self.operations.deleteEverything(
                    uid: caller.uid,
                    operationID: self.scopedOperation(request.operationID, uid: caller.uid),
                    reason: .userRequest,
                    options: CallOptions(deadline: context.deadline)
                )
                return DeletionReport(documentsDeleted: deleted)
            }
        }
        router.register(GatewayMethods.signOut) { request, context in
            try await self.remembering(
                request.operationID,
                token: request.accessToken,
                fingerprint: ByteBuffer(string: "sign-out"),
                context: context
            ) {
                try await self.signOut(request, context: context)
            }
        }
    }

    /// A guest's sign-out deletes it with everything (it could never sign in again); a member's revokes the session.
    func signOut(_ request: OperationRequest, context: RPCContext) async throws -> SignOutResponse {
        let (caller, finished) = try await authenticateDeletion(
            request.accessToken,
            operationID: request.operationID,
            context: context
        )
        if finished { return SignOutResponse(accountDeleted: true) }
        let options = CallOptions(deadline: context.deadline)
        if caller.isAnonymous {
            _ = try await operations.deleteEverything(
                uid: caller.uid,
                operationID: scopedOperation(request.operationID, uid: caller.uid),
                reason: .userRequest,
                options: options
            )
            return SignOutResponse(accountDeleted: true)
        }
        _ = try await identity.call(
            IdentityMethods.revokeSession,
            RevokeSessionRequest(uid: caller.uid, sessionID: caller.sessionID),
            options: options
        )
        return SignOutResponse(accountDeleted: false)
    }

    // MARK: Link-or-merge

    /// Links the credential to the caller. New credential: the caller keeps its uid and becomes a member.
    /// Another account's credential: merge, discard or fail as the client chose.
    func link(_ request: LinkRequest, context: RPCContext) async throws -> LinkResult {
        // A digest of the credential, so no password is kept in memory with the answer.
        var credential = ByteBuffer()
        request.credential.encode(into: &credential)
        var fingerprint = ByteBuffer(bytes: SHA256.hash(credential.readableBytesView))
        fingerprint.writeMultipleIntegers(request.onConflict.rawValue, request.mergePolicy.rawValue)
        return try await remembering(
            request.operationID,
            token: request.accessToken,
            fingerprint: fingerprint,
            context: context
        ) {
            let caller: Caller
            switch try await self.authenticateResolution(
                request.accessToken,
                operationID: request.operationID,
                choice: request.onConflict,
                policy: request.mergePolicy,
                credential: request.credential,
                context: context
            ) {
            case .caller(let authenticated): caller = authenticated
            case .finished(let result): return result
            }
            let options = CallOptions(deadline: context.deadline)
            let session: SessionTokens
            do {
                session = try await self.attach(request.credential, to: caller.uid, options: options)
            } catch let error as RPCError where Self.isConflict(error) {
                guard request.onConflict != .fail, let details = try? ConflictDetails(decoding: error.details) else {
                    throw error
                }
                return try await self.resolve(
                    guest: caller,
                    account: details.otherUID,
                    ticket: details.ticket,
                    choice: request.onConflict,
                    policy: request.mergePolicy,
                    operationID: request.operationID,
                    options: options
                )
            }
            guard session.uid == caller.uid else {
                // A sign-in email link signs in to its own account; it cannot be linked to another one.
                throw RPCError.invalidArgument(
                    "this credential signs in to another account and cannot be linked; use signIn"
                )
            }
            if caller.isAnonymous {
                _ = try await self.guestQuota.call(
                    GuestQuotaMethods.changePlan,
                    ChangePlanRequest(uid: caller.uid, plan: self.configuration.memberPlan),
                    options: options
                )
            }
            return LinkResult(outcome: .linked, session: session)
        }
    }

    /// Decides a conflict returned earlier (`onConflict: fail`) with its ticket.
    func resolveConflict(_ request: ResolveConflictRequest, context: RPCContext) async throws -> LinkResult {
        var fingerprint = ByteBuffer(string: request.ticket)
        fingerprint.writeMultipleIntegers(request.choice.rawValue, request.mergePolicy.rawValue)
        return try await remembering(
            request.operationID,
            token: request.accessToken,
            fingerprint: fingerprint,
            context: context
        ) {
            let caller: Caller
            switch try await self.authenticateResolution(
                request.accessToken,
                operationID: request.operationID,
                choice: request.choice,
                policy: request.mergePolicy,
                credential: nil,
                context: context
            ) {
            case .caller(let authenticated): caller = authenticated
            case .finished(let result): return result
            }
            return try await self.resolve(
                guest: caller,
                account: nil,
                ticket: request.ticket,
                choice: request.choice,
                policy: request.mergePolicy,
                operationID: request.operationID,
                options: CallOptions(deadline: context.deadline)
            )
        }
    }

    /// Signs in to the account with the ticket first (so the account's session exists before anything is
    /// deleted), then merges the guest into it or deletes the guest.
    private func resolve(
        guest: Caller,
        account: String?,
        ticket: String,
        choice: ConflictChoice,
        policy: MergePolicy,
        operationID: String,
        options: CallOptions
    ) async throws -> LinkResult {
        guard guest.isAnonymous else {
            throw RPCError(
                GatewayStatus.wrongAccountKind,
                "only a guest can be merged into or discarded for another account"
            )
        }
        let operationID = scopedOperation(operationID, uid: guest.uid)
        let session = try await identity.call(
            IdentityMethods.redeemConflictTicket,
            RedeemConflictTicketRequest(uid: guest.uid, ticket: ticket),
            options: options
        )
        if let account, account != session.uid {
            throw RPCError(.internal, "the conflict ticket signed in to another account than the conflict named")
        }
        switch choice {
        case .merge:
            let report = try await operations.mergeGuest(
                guest: guest.uid,
                into: session.uid,
                operationID: operationID,
                policy: policy,
                options: options
            )
            return LinkResult(outcome: .merged, session: session, mergeReport: report)
        case .discard:
            _ = try await operations.deleteEverything(
                uid: guest.uid,
                operationID: operationID,
                reason: .merge,
                options: options
            )
            return LinkResult(outcome: .discarded, session: session)
        case .fail:
            throw RPCError.invalidArgument("a conflict can only be resolved by merge or discard")
        }
    }

    /// Who asks for a link-or-merge or a conflict's resolution, or the answer of one an earlier attempt began.
    private enum Resolution {
        case caller(Caller)
        case finished(LinkResult)
    }

    /// Strict authentication; for a token identity refuses as revoked, the merge or discard an earlier attempt
    /// under this operation began, finished (`continueResolution`), or else the refusal.
    private func authenticateResolution(
        _ token: String,
        operationID: String,
        choice: ConflictChoice,
        policy: MergePolicy,
        credential: Credential?,
        context: RPCContext
    ) async throws -> Resolution {
        do {
            return .caller(try await authenticateStrictly(token, context: context))
        } catch let refusal as RPCError where refusal.status == IdentityStatus.tokenRevoked {
            guard
                let result = try await continueResolution(
                    token: token,
                    operationID: operationID,
                    choice: choice,
                    policy: policy,
                    credential: credential,
                    context: context
                )
            else { throw refusal }
            return .finished(result)
        }
    }

    /// Finishes a merge or discard that an earlier attempt under this operation began before it failed. That first
    /// step revoked the guest's sessions, so the retry's token is refused as revoked; it is accepted here when its
    /// signature and lifetime check out and the guest is `merging` (or `deleting`) under this very operation. The
    /// merge runs its remaining steps under the retry's policy. The account's session comes from signing in with
    /// the credential when it is a password; an email link, ID token or ticket was spent by the first attempt, so
    /// then the answer is `sign-in-required`. Answers nil when there is nothing of this operation to continue.
    private func continueResolution(
        token: String,
        operationID: String,
        choice: ConflictChoice,
        policy: MergePolicy,
        credential: Credential?,
        context: RPCContext
    ) async throws -> LinkResult? {
        let options = CallOptions(deadline: context.deadline)
        guard let guest = try? await verifySignature(token) else { return nil }
        let operationID = scopedOperation(operationID, uid: guest.uid)
        let state: AccountState
        do {
            state = try await identity.call(
                IdentityMethods.getUser,
                IdentityUserRequest(uid: guest.uid),
                options: options
            )
            .state
        } catch let error as RPCError where error.status == IdentityStatus.userNotFound {
            return try await finishedResolution(
                guest: guest,
                operationID: operationID,
                choice: choice,
                policy: policy,
                credential: credential,
                options: options
            )
        } catch {
            return nil
        }
        guard state.operationID == operationID else { return nil }
        switch (state.kind, choice) {
        case (.merging, .merge):
            guard let account = state.mergeInto else { return nil }
            context.logger.info(
                "a retried merge continues",
                metadata: ["user.uid": "\(guest.uid)", "merge.into": "\(account)"]
            )
            let report = try await operations.finishMerge(
                guest: guest.uid,
                into: account,
                operationID: operationID,
                policy: policy,
                options: options
            )
            return LinkResult(
                outcome: .merged,
                session: try await accountSession(credential, account: account, finished: "merge", options: options),
                mergeReport: report
            )
        case (.deleting, .discard):
            context.logger.info("a retried discard continues", metadata: ["user.uid": "\(guest.uid)"])
            _ = try await operations.finishDeletion(
                uid: guest.uid,
                operationID: operationID,
                reason: .merge,
                options: options
            )
            return LinkResult(
                outcome: .discarded,
                session: try await accountSession(credential, account: nil, finished: "discard", options: options)
            )
        default:
            return nil
        }
    }

    /// The answer to a retry whose first attempt finished the merge or discard (its answer was lost, or the retry
    /// reached another replica): the guest is gone, identity confirms that this operation removed it, and the
    /// retry's password signs in to the account. Answers nil when the guest went some other way.
    private func finishedResolution(
        guest: Caller,
        operationID: String,
        choice: ConflictChoice,
        policy: MergePolicy,
        credential: Credential?,
        options: CallOptions
    ) async throws -> LinkResult? {
        let confirmation: RPCMethod<IdentityOperationRequest, Empty>
        switch choice {
        case .merge: confirmation = IdentityMethods.finishMerge
        case .discard: confirmation = IdentityMethods.finishDelete
        case .fail: return nil
        }
        do {
            // Finishing a finished operation answers success; any other is user-not-found.
            _ = try await identity.call(
                confirmation,
                IdentityOperationRequest(uid: guest.uid, operationID: operationID),
                options: options
            )
        } catch let error as RPCError where error.status == IdentityStatus.userNotFound {
            return nil
        }
        let finished = choice == .merge ? "merge" : "discard"
        let session = try await accountSession(credential, account: nil, finished: finished, options: options)
        guard choice == .merge else { return LinkResult(outcome: .discarded, session: session) }
        // user-data answers the report it recorded for this operation.
        let report = try await userData.call(
            UserDataMethods.merge,
            MergeDocumentsRequest(fromUID: guest.uid, toUID: session.uid, op: operationID, policy: policy),
            options: options
        )
        return LinkResult(outcome: .merged, session: session, mergeReport: report)
    }

    /// A session for the account a finished merge or discard went to, signed in with the retry's password.
    private func accountSession(
        _ credential: Credential?,
        account: String?,
        finished: String,
        options: CallOptions
    ) async throws -> SessionTokens {
        guard case .password(let email, let password)? = credential else {
            throw RPCError(GatewayStatus.signInRequired, "the \(finished) is done; sign in to the account")
        }
        let session = try await identity.call(
            IdentityMethods.signInWithPassword,
            PasswordSignInRequest(email: email, password: password),
            options: options
        )
        guard account == nil || session.uid == account else {
            throw RPCError(GatewayStatus.signInRequired, "the \(finished) is done; sign in to the account")
        }
        return session
    }

    /// Attaches a credential to `uid` with identity.
    private func attach(_ credential: Credential, to uid: String, options: CallOptions) async throws -> SessionTokens {
        switch credential {
        case .password(let email, let password):
            try await identity.call(
                IdentityMethods.linkPassword,
                LinkPasswordRequest(uid: uid, email: email, password: password),
                options: options
            )
        case .emailLink(let token, let verifier):
            try await identity.call(
                IdentityMethods.completeEmailLink,
                CompleteEmailLinkRequest(token: token, verifier: verifier, uid: uid),
                options: options
            )
        case .idToken(let provider, let idToken, let rawNonce):
            try await identity.call(
                IdentityMethods.linkProvider,
                LinkProviderRequest(uid: uid, provider: provider, idToken: idToken, rawNonce: rawNonce),
                options: options
            )
        }
    }

    /// The services key merges and deletions by operation id alone, and clients choose their ids: the gateway
    /// scopes each to its user (a hash, so it stays short and carries no uid), so two users' "op-1" never meet.
    func scopedOperation(_ operationID: String, uid: String) -> String {
        "gw-" + QuotaKeys.hex(uid + "\u{0}" + operationID).prefix(40)
    }

    static func isConflict(_ error: RPCError) -> Bool {
        [IdentityStatus.credentialAlreadyInUse, IdentityStatus.emailAlreadyInUse, IdentityStatus.providerAlreadyLinked]
            .contains(error.status)
    }

    /// Runs `operation` once per (caller, operation id) on this replica: a retry with the same id and the same
    /// request gets the first answer; the same id with another request is refused. The caller is identified by
    /// the token's signature alone, so a guest whose merge revoked its token still gets its answer on retry.
    func remembering<Answer: WireMessage>(
        _ operationID: String,
        token: String,
        fingerprint: ByteBuffer,
        context: RPCContext,
        _ operation: () async throws -> Answer
    ) async throws -> Answer {
        let caller = try await authenticate(token, context: context)
        let operationID = scopedOperation(operationID, uid: caller.uid)
        switch results.lookup(operationID, request: fingerprint, now: now) {
        case .answer(let bytes):
            return try Answer(decoding: bytes)
        case .conflict:
            throw RPCError(GatewayStatus.operationReused, "this operation id was used for a different request")
        case .none:
            let answer = try await operation()
            results.remember(operationID, request: fingerprint, answer: answer.encoded(), now: now)
            return answer
        }
    }
}
