import FoyerAPI
import FoyerRPC
import FoyerWire

/// Retries of link-or-merge and resolveConflict after the first attempt got past `beginMerge` (or, for a discard,
/// `beginDelete`), which revoked the guest's sessions: they finish what the first attempt began (docs/DECISIONS.md).
extension GatewayCore {
    /// Who asks for a link-or-merge or a conflict's resolution, or the answer of one an earlier attempt began.
    enum Resolution {
        case caller(Caller)
        case finished(LinkResult)
    }

    /// Strict authentication under `requirement`; for a token identity refuses as revoked, the merge or discard an earlier attempt
    /// under this operation began, finished (`continueResolution`), or else the refusal.
    func authenticateResolution(
        _ token: String,
        requirement: TokenRequirement,
        operationID: String,
        choice: ConflictChoice,
        policy: MergePolicy,
        credential: Credential?,
        context: RPCContext
    ) async throws -> Resolution {
        do {
            return .caller(try await authenticateStrictly(token, requirement: requirement, context: context))
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
                source: sourceAddress(context),
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
            return .merged(
                try await accountSession(
                    credential,
                    account: account,
                    finished: "merge",
                    source: sourceAddress(context),
                    options: options
                ),
                report
            )
        case (.deleting, .discard):
            context.logger.info("a retried discard continues", metadata: ["user.uid": "\(guest.uid)"])
            _ = try await operations.finishDeletion(
                uid: guest.uid,
                operationID: operationID,
                reason: .merge,
                options: options
            )
            return .discarded(
                try await accountSession(
                    credential,
                    account: nil,
                    finished: "discard",
                    source: sourceAddress(context),
                    options: options
                )
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
        source: String,
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
        let session = try await accountSession(
            credential,
            account: nil,
            finished: finished,
            source: source,
            options: options
        )
        guard choice == .merge else { return .discarded(session) }
        // user-data answers the report it recorded for this operation. cleanup's recovery may have finished the merge
        // under another policy than this retry's (keepBoth first, Sweeper+Recovery): user-data refuses the others
        // with `op-conflict`, so the recorded one is found by trying them in turn; nothing is merged again.
        let policies = [policy] + MergePolicy.allCases.filter { $0 != policy }
        for (index, candidate) in policies.enumerated() {
            do {
                let report = try await userData.call(
                    UserDataMethods.merge,
                    MergeDocumentsRequest(fromUID: guest.uid, toUID: session.uid, op: operationID, policy: candidate),
                    options: options
                )
                return .merged(session, report)
            } catch let error as RPCError where error.status == UserDataStatus.opConflict && index < policies.count - 1
            {
                continue
            }
        }
        preconditionFailure("the last policy's failure is thrown above")
    }

    /// A session for the account a finished merge or discard went to, signed in with the retry's password.
    private func accountSession(
        _ credential: Credential?,
        account: String?,
        finished: String,
        source: String,
        options: CallOptions
    ) async throws -> SessionTokens {
        guard case .password(let email, let password)? = credential else {
            throw RPCError(GatewayStatus.signInRequired, "the \(finished) is done; sign in to the account")
        }
        let session = try await identity.call(
            IdentityMethods.signInWithPassword,
            PasswordSignInRequest(email: email, password: password, source: source),
            options: options
        )
        guard account == nil || session.uid == account else {
            throw RPCError(GatewayStatus.signInRequired, "the \(finished) is done; sign in to the account")
        }
        return session
    }
}
