import Foundation
import FoyerAPI
import FoyerCrypto
import FoyerRPC
import FoyerWire
import NIOCore

extension GatewayCore {
    func registerAccounts(on router: inout RPCRouter) {
        serve(GatewayMethods.me, on: &router) { _, caller, options in
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
        serve(GatewayMethods.quota, on: &router) { _, caller, options in
            try await self.guestQuota.call(
                GuestQuotaMethods.usage,
                QuotaUsageRequest(uid: caller.uid),
                options: options
            )
        }
        serve(GatewayMethods.checkFeature, on: &router) { request, caller, options in
            try await self.guestQuota.call(
                GuestQuotaMethods.feature,
                FeatureCheckRequest(uid: caller.uid, feature: request.feature),
                options: options
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
                // Deleting a member is a step-up action, as changing its password is: a stolen old session cannot.
                let (caller, progress) = try await self.authenticateDeletion(
                    request.accessToken,
                    operationID: request.operationID,
                    requirement: .guestOrRecentSignIn,
                    context: context
                )
                let deleted = try await self.delete(
                    caller,
                    operationID: request.operationID,
                    progress: progress,
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
        let (caller, progress) = try await authenticateDeletion(
            request.accessToken,
            operationID: request.operationID,
            context: context
        )
        let options = CallOptions(deadline: context.deadline)
        // Only a guest's sign-out deletes, so a deletion already begun or finished is a guest's.
        if caller.isAnonymous || progress != .notBegun {
            _ = try await delete(caller, operationID: request.operationID, progress: progress, options: options)
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
    /// Another account's credential, proven: merge or discard as the client chose, or with `fail` answer the
    /// conflict (the account and a ticket) and change nothing.
    func link(_ request: LinkRequest, context: RPCContext) async throws -> LinkResult {
        try admitRedemption(of: request.credential, context: context)
        // A digest of the credential, so no password is kept in memory with the answer.
        var credential = ByteBuffer()
        request.credential.encode(into: &credential)
        var fingerprint = ByteBuffer(bytes: SHA256.hash(credential.readableBytesView))
        fingerprint.writeMultipleIntegers(request.onConflict.rawValue, request.mergePolicy.rawValue)
        return try await resolving(
            token: request.accessToken,
            // Linking a credential to a member is a step-up action: a stolen old session cannot add a way in.
            requirement: .guestOrRecentSignIn,
            operationID: request.operationID,
            fingerprint: fingerprint,
            choice: request.onConflict,
            policy: request.mergePolicy,
            credential: request.credential,
            context: context
        ) { caller in
            let options = CallOptions(deadline: context.deadline)
            let session: SessionTokens
            switch try await self.attach(
                request.credential,
                to: caller.uid,
                source: self.sourceAddress(context),
                options: options
            ) {
            case .session(let tokens):
                session = tokens
            case .conflict(let details) where request.onConflict == .fail:
                return .conflict(details)
            case .conflict(let details):
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
            return .linked(session)
        }
    }

    /// Decides a conflict returned earlier (`onConflict: fail`) with its ticket.
    func resolveConflict(_ request: ResolveConflictRequest, context: RPCContext) async throws -> LinkResult {
        var fingerprint = ByteBuffer(string: request.ticket)
        fingerprint.writeMultipleIntegers(request.choice.rawValue, request.mergePolicy.rawValue)
        return try await resolving(
            token: request.accessToken,
            requirement: .any,
            operationID: request.operationID,
            fingerprint: fingerprint,
            choice: request.choice,
            policy: request.mergePolicy,
            credential: nil,
            context: context
        ) { caller in
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

    /// Runs a link-or-merge step for its caller once per operation id (`remembering`): a retry gets the first
    /// answer, and a retry whose first attempt already revoked the guest continues or finishes what that attempt
    /// began (`authenticateResolution`) instead of running `body`.
    private func resolving(
        token: String,
        requirement: TokenRequirement,
        operationID: String,
        fingerprint: ByteBuffer,
        choice: ConflictChoice,
        policy: MergePolicy,
        credential: Credential?,
        context: RPCContext,
        _ body: (Caller) async throws -> LinkResult
    ) async throws -> LinkResult {
        try await remembering(operationID, token: token, fingerprint: fingerprint, context: context) {
            switch try await authenticateResolution(
                token,
                requirement: requirement,
                operationID: operationID,
                choice: choice,
                policy: policy,
                credential: credential,
                context: context
            ) {
            case .caller(let caller): try await body(caller)
            case .finished(let result): result
            }
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
            return .merged(session, report)
        case .discard:
            _ = try await operations.deleteEverything(
                uid: guest.uid,
                operationID: operationID,
                reason: .merge,
                options: options
            )
            return .discarded(session)
        case .fail:
            throw RPCError.invalidArgument("a conflict can only be resolved by merge or discard")
        }
    }

    /// Attaches a credential to `uid` with identity; `source` is the client's address (identity limits per source).
    private func attach(
        _ credential: Credential,
        to uid: String,
        source: String,
        options: CallOptions
    ) async throws -> LinkAttempt {
        switch credential {
        case .password(let email, let password):
            try await identity.call(
                IdentityMethods.linkPassword,
                LinkPasswordRequest(uid: uid, email: email, password: password, source: source),
                options: options
            )
        case .emailLink(let token, let verifier):
            try await identity.call(
                IdentityMethods.completeEmailLink,
                CompleteEmailLinkRequest(token: token, verifier: verifier, uid: uid),
                options: options
            )
        case .idToken(let provider, let idToken, let rawNonce, let code):
            try await identity.call(
                IdentityMethods.linkProvider,
                LinkProviderRequest(
                    uid: uid,
                    provider: provider,
                    idToken: idToken,
                    rawNonce: rawNonce,
                    authorizationCode: code
                ),
                options: options
            )
        }
    }

    /// The services key merges and deletions by operation id alone, and clients choose their ids: the gateway
    /// scopes each to its user (a hash, so it stays short and carries no uid), so two users' "op-1" never meet.
    func scopedOperation(_ operationID: String, uid: String) -> String {
        "gw-" + QuotaKeys.hex(uid + "\u{0}" + operationID).prefix(40)
    }

    /// Runs `operation` once per (caller, operation id) across the gateway replicas: a retry with the same id and
    /// the same request gets the first answer, from this replica's memory or from identity, where every replica
    /// stores its answers sealed (``SharedOperationAnswer``); the same id with another request is refused. The
    /// caller is identified by the token's signature alone, so a guest whose merge revoked its token still gets
    /// its answer on retry.
    func remembering<Answer: WireMessage>(
        _ operationID: String,
        token: String,
        fingerprint: ByteBuffer,
        context: RPCContext,
        _ operation: () async throws -> Answer
    ) async throws -> Answer {
        let caller = try await verifySignature(token)
        let operationID = scopedOperation(operationID, uid: caller.uid)
        let conflict = RPCError(GatewayStatus.operationReused, "this operation id was used for a different request")
        switch results.lookup(operationID, request: fingerprint, now: now) {
        case .answer(let bytes): return try Answer(decoding: bytes)
        case .conflict: throw conflict
        case .none: break
        }
        let shared = SharedOperationAnswer(
            scopedOperationID: operationID,
            request: fingerprint,
            key: configuration.operationAnswerKey
        )
        let options = CallOptions(deadline: context.deadline)
        switch await recallShared(shared, options: options, context: context) {
        case .answer(let bytes):
            results.remember(operationID, request: fingerprint, answer: bytes, now: now)
            return try Answer(decoding: bytes)
        case .conflict: throw conflict
        case nil: break
        }
        // Every operation run here may revoke the caller's sessions (sign-out, deletion, merge), whether it
        // finishes or fails half-way: what this replica knew of them is forgotten either way.
        defer { sessions.forget(uid: caller.uid, now: now) }
        let answer = try await operation()
        let encoded = answer.encoded()
        results.remember(operationID, request: fingerprint, answer: encoded, now: now)
        do {
            let record = try shared.record(of: encoded, lifetime: configuration.rememberedOperationLifetime)
            _ = try await identity.call(IdentityMethods.rememberOperationAnswer, record, options: options)
        } catch {
            // The operation is done and its answer goes back; only a retry on another replica would re-run its
            // (idempotent) steps instead of getting this answer.
            context.logger.warning(
                "could not store an operation's answer in identity",
                metadata: ["error": "\(error)"]
            )
        }
        return answer
    }

    /// The answer another replica (or this one, before a restart) stored in identity; nil when none is stored or
    /// identity cannot say now (the operation then runs, and fails or re-runs its idempotent steps).
    private func recallShared(
        _ shared: SharedOperationAnswer,
        options: CallOptions,
        context: RPCContext
    ) async -> SharedOperationAnswer.Recalled? {
        do {
            let recalled = try await identity.call(
                IdentityMethods.recallOperationAnswer,
                RecallOperationAnswerRequest(id: shared.id),
                options: options
            )
            guard let found = recalled.found else { return nil }
            guard let outcome = shared.recall(found) else {
                context.logger.warning(
                    "an operation answer stored in identity did not open (damaged); running it again"
                )
                return nil
            }
            return outcome
        } catch {
            context.logger.warning("could not ask identity for an operation's answer", metadata: ["error": "\(error)"])
            return nil
        }
    }
}
