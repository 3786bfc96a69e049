public import FoyerAPI
import FoyerWire

extension FoyerClient {
    /// Who the caller is (uid, guest or member, email, linked providers) and their quota.
    public func me() async throws(FoyerError) -> MeResponse {
        try await authorized(GatewayMethods.me) { AuthenticatedRequest(accessToken: $0) }
    }

    /// The caller's plan, counters and features.
    public func quota() async throws(FoyerError) -> QuotaUsageResponse {
        try await authorized(GatewayMethods.quota) { AuthenticatedRequest(accessToken: $0) }
    }

    /// Whether the caller's plan has `feature` on, and the plan's name (any feature of the plans file; throws
    /// `unknown-feature` for a name no plan defines).
    public func checkFeature(_ feature: String) async throws(FoyerError) -> FeatureCheckResponse {
        try await authorized(GatewayMethods.checkFeature) { GatewayFeatureRequest(accessToken: $0, feature: feature) }
    }

    /// Adds `amount` to the caller's counter `counter` (one the app defines in the plans file, such as `transactions`
    /// or `uploads`) if that keeps it within the plan's limit, and answers the counter after it. Over the limit:
    /// `quotaExceeded` (with `FoyerError.quotaExceeded`: limit, used, remaining), nothing counted. The same
    /// `idempotencyKey` again counts nothing more and answers the counter as it stands, so a call whose outcome is
    /// unknown can be sent again. The gateway's own counters (`documents`, `bytes`, `documents:<collection>`) are
    /// `counterReserved`; a name the plan does not have is `unknownCounter`.
    public func consume(
        _ counter: String,
        amount: UInt64 = 1,
        idempotencyKey: String = OperationID.make()
    ) async throws(FoyerError) -> CounterUsage {
        try await authorized(GatewayMethods.consumeCounter) {
            GatewayCounterRequest(accessToken: $0, counter: counter, amount: amount, idempotencyKey: idempotencyKey)
        }
    }

    /// Gives back `amount` of the caller's counter `counter` (an upload deleted, a transaction cancelled), once per
    /// `idempotencyKey` (a release's keys are apart from a consume's), never below zero; answers the counter after it.
    public func release(
        _ counter: String,
        amount: UInt64 = 1,
        idempotencyKey: String = OperationID.make()
    ) async throws(FoyerError) -> CounterUsage {
        try await authorized(GatewayMethods.releaseCounter) {
            GatewayCounterRequest(accessToken: $0, counter: counter, amount: amount, idempotencyKey: idempotencyKey)
        }
    }

    /// Links a credential to the signed-in user and adopts the session the gateway answers.
    ///
    /// - A new credential: a guest becomes a member with the same uid and data (`.linked`).
    /// - Another account's credential: with `.merge` the guest's documents move into that account (colliding keys
    ///   resolved by `mergePolicy`) and the guest is deleted (`.merged`, with a report); with `.discard` the guest
    ///   is deleted with its data (`.discarded`); either way the client is now signed in to that account. With
    ///   `.fail` nothing changes: the answer is `.conflict` with the other account and a ticket for
    ///   `resolveConflict`, and the client keeps its session.
    /// - An email in use with a password that is not its account's: `email-already-in-use` (nothing proven, so
    ///   no ticket).
    @discardableResult
    public func link(
        _ credential: Credential,
        onConflict: ConflictChoice = .fail,
        mergePolicy: MergePolicy = .keepAccount,
        operationID: String = OperationID.make()
    ) async throws(FoyerError) -> LinkResult {
        let result = try await authorized(GatewayMethods.link) { token in
            LinkRequest(
                accessToken: token,
                credential: credential,
                onConflict: onConflict,
                mergePolicy: mergePolicy,
                operationID: operationID
            )
        }
        if let session = result.session { adopt(session) }
        return result
    }

    /// Links an email and password (a guest's sign-up).
    @discardableResult
    public func link(
        email: String,
        password: String,
        onConflict: ConflictChoice = .fail,
        mergePolicy: MergePolicy = .keepAccount,
        operationID: String = OperationID.make()
    ) async throws(FoyerError) -> LinkResult {
        try await link(
            .password(email: email, password: password),
            onConflict: onConflict,
            mergePolicy: mergePolicy,
            operationID: operationID
        )
    }

    /// Decides a conflict that `link(..., onConflict: .fail)` answered, with the ticket of its `.conflict`, without
    /// presenting the credential again. Adopts the other account's session. Use a new operation id: the link's is
    /// spent on the conflict answer.
    @discardableResult
    public func resolveConflict(
        ticket: String,
        choice: ConflictChoice,
        mergePolicy: MergePolicy = .keepAccount,
        operationID: String = OperationID.make()
    ) async throws(FoyerError) -> LinkResult {
        guard choice != .fail else { throw .invalidInput("a conflict is resolved by merge or discard") }
        let result = try await authorized(GatewayMethods.resolveConflict) { token in
            ResolveConflictRequest(
                accessToken: token,
                ticket: ticket,
                choice: choice,
                mergePolicy: mergePolicy,
                operationID: operationID
            )
        }
        if let session = result.session { adopt(session) }
        return result
    }

    /// Deletes the account and everything it owns, in every service, and forgets the session.
    ///
    /// - Returns: the documents deleted.
    @discardableResult
    public func deleteAccount(operationID: String = OperationID.make()) async throws(FoyerError) -> UInt64 {
        let report = try await authorized(GatewayMethods.deleteAccount) { token in
            OperationRequest(accessToken: token, operationID: operationID)
        }
        adopt(nil)
        return report.documentsDeleted
    }

    // MARK: Public information

    /// Identity's signing keys as JWK Set JSON, for an app backend that verifies access tokens itself.
    public func jwks() async throws(FoyerError) -> [UInt8] {
        try await call(GatewayMethods.jwks, Empty()).json
    }
}
