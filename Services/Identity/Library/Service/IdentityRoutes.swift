import FoyerAPI
import FoyerRPC
import FoyerWire
import NIOCore

/// Registers every identity method on a router, each calling its handler on the core; the one place where
/// identity's refusals become wire statuses (`rpcError(_:)`).
enum IdentityRoutes {
    static func register(_ core: IdentityCore, on router: inout RPCRouter) {
        typealias M = IdentityMethods
        router.route(M.createGuest) { request in try await core.createGuest(request) }
        router.route(M.refreshSession) { request in try await core.refreshSession(request) }
        router.route(M.verifyAccessToken) { request in try await core.verifyAccessToken(request) }
        router.route(M.revokeSession) { request in
            try await core.revokeSession(request)
            return Empty()
        }
        router.route(M.revokeAllSessions) { request in
            try await core.revokeAllSessions(request)
            return Empty()
        }
        router.route(M.getJWKS) { _ in try core.jwks() }
        router.route(M.rotateSigningKey) { _ in try await core.rotateSigningKey() }
        router.route(M.getUser) { request in try await core.getUser(request) }
        router.route(M.recordActivity) { request in
            try await core.recordActivity(request)
            return Empty()
        }
        router.route(M.linkPassword) { request in try await core.linkPassword(request) }
        router.route(M.signInWithPassword) { request in try await core.signInWithPassword(request) }
        router.route(M.startEmailLink) { request in
            try await core.startEmailLink(request)
            return Empty()
        }
        router.route(M.completeEmailLink) { request in try await core.completeEmailLink(request) }
        router.route(M.completeEmailCode) { request in try await core.completeEmailCode(request) }
        router.route(M.createDeviceKeyChallenge) { request in try await core.createDeviceKeyChallenge(request) }
        router.route(M.registerDeviceKey) { request in try await core.registerDeviceKey(request) }
        router.route(M.signInWithDeviceKey) { request in try await core.signInWithDeviceKey(request) }
        router.route(M.listOutbox) { request in try await core.listOutbox(request) }
        router.route(M.signInWithProvider) { request in try await core.signInWithProvider(request) }
        router.route(M.linkProvider) { request in try await core.linkProvider(request) }
        router.route(M.link) { request in try await core.link(request) }
        router.route(M.deleteAccount) { request in try await core.deleteAccount(request) }
        router.route(M.finishMerge) { request in
            try await core.finishMerge(request)
            return Empty()
        }
        router.route(M.beginDelete) { request in try await core.beginDelete(request) }
        router.route(M.finishDelete) { request in
            try await core.finishDelete(request)
            return Empty()
        }
        router.route(M.beginDeleteBatch) { request in
            Batch(try await core.beginDeleteBatch(try Self.nonEmpty(request.elements)).map(BatchOutcome.init))
        }
        router.route(M.finishDeleteBatch) { request in
            Batch(try await core.finishDeleteBatch(try Self.nonEmpty(request.elements)).map(BatchOutcome.init))
        }
        router.route(M.listStuckAccounts) { request in try await core.listStuckAccounts(request) }
        router.route(M.listExpiredGuests) { request in try await core.listExpiredGuests(request) }
        router.route(M.listEvents) { request in try await core.listEvents(request) }
        router.route(M.getEvent) { request in try await core.getEvent(request) }
        router.route(M.replayEvent) { request in try await core.replayEvent(request) }
        router.route(M.startPasswordReset) { request in
            try await core.startPasswordReset(request)
            return Empty()
        }
        router.route(M.completePasswordReset) { request in try await core.completePasswordReset(request) }
        router.route(M.changePassword) { request in try await core.changePassword(request) }
        router.route(M.unlinkCredential) { request in
            try await core.unlinkCredential(request)
            return Empty()
        }
        router.route(M.startEmailChange) { request in
            try await core.startEmailChange(request)
            return Empty()
        }
        router.route(M.completeEmailChange) { request in
            try await core.completeEmailChange(request)
            return Empty()
        }
        registerAdministration(core, on: &router)
    }

    /// The administration methods (the gateway's admin listener).
    private static func registerAdministration(_ core: IdentityCore, on router: inout RPCRouter) {
        typealias M = IdentityMethods
        router.route(M.findUser) { request in try await core.findUser(request) }
        router.route(M.listUsers) { request in try await core.listUsers(request) }
        router.route(M.userCounts) { request in try await core.userCounts(request) }
        router.route(M.createAdminKey) { request in try await core.createAdminKey(request) }
        router.route(M.listAdminKeys) { _ in try await core.listAdminKeys() }
        router.route(M.revokeAdminKey) { request in try await core.revokeAdminKey(request) }
        router.route(M.verifyAdminKey) { request in try await core.verifyAdminKey(request) }
        router.route(M.beginAdminAction) { request in try await core.beginAdminAction(request) }
        router.route(M.endAdminAction) { request in
            try await core.endAdminAction(request)
            return Empty()
        }
        router.route(M.listAdminActions) { request in try await core.listAdminActions(request) }
        router.route(M.setUserPlan) { request in
            try await core.setUserPlan(request)
            return Empty()
        }
        router.route(M.setUserRoles) { request in
            try await core.setUserRoles(request)
            return Empty()
        }
        router.route(M.rememberOperationAnswer) { request in
            try await core.rememberOperationAnswer(request)
            return Empty()
        }
    }

    /// A batch of no element is a caller's mistake, not a batch that did nothing.
    private static func nonEmpty<Element>(_ elements: [Element]) throws -> [Element] {
        guard !elements.isEmpty else {
            throw IdentityError.invalidArgument("a batch holds 1-\(BatchLimits.countMax) elements")
        }
        return elements
    }

    /// The wire form of a refusal: its status, message and retry-after hint.
    static func rpcError(_ error: IdentityError) -> RPCError {
        RPCError(status(of: error.code), error.message, retryAfterMilliseconds: error.retryAfterMilliseconds ?? 0)
    }

    /// The status each refusal is answered with.
    static func status(of code: IdentityError.Code) -> RPCStatus {
        typealias S = IdentityStatus
        switch code {
        case .invalidArgument: return .invalidArgument
        case .sessionNotFound: return .notFound
        case .changedConcurrently: return .unavailable
        case .notFound: return .notFound
        case .adminKeyRefused: return .unauthenticated
        case .tooManyAdminKeys: return .resourceExhausted
        case .invalidToken: return S.invalidToken
        case .tokenExpired: return S.tokenExpired
        case .tokenRevoked: return S.tokenRevoked
        case .wrongIssuer: return S.wrongIssuer
        case .wrongAudience: return S.wrongAudience
        case .unsupportedAlgorithm: return S.unsupportedAlgorithm
        case .unknownKeyID: return S.unknownKeyID
        case .memberRequired: return S.memberRequired
        case .guestRequired: return S.guestRequired
        case .refreshTokenReused: return S.refreshTokenReused
        case .tokenNotYetValid: return S.tokenNotYetValid
        case .invalidCredentials: return S.invalidCredentials
        case .tooManyAttempts: return S.tooManyAttempts
        case .invalidEmail: return S.invalidEmail
        case .weakPassword: return S.weakPassword
        case .tokenAlreadyUsed: return S.tokenAlreadyUsed
        case .verifierMismatch: return S.verifierMismatch
        case .nonceMismatch: return S.nonceMismatch
        case .nonceAlreadyUsed: return S.nonceAlreadyUsed
        case .providerNotConfigured: return S.providerNotConfigured
        case .emailAlreadyInUse: return S.emailAlreadyInUse
        case .providerAlreadyLinked: return S.providerAlreadyLinked
        case .credentialAlreadyInUse: return S.credentialAlreadyInUse
        case .ticketInvalid: return S.ticketInvalid
        case .userNotFound: return S.userNotFound
        case .accountNotActive: return S.accountNotActive
        case .operationConflict: return S.operationConflict
        case .guestStillActive: return S.guestStillActive
        case .idempotencyKeyReused: return S.idempotencyKeyReused
        case .outboxDisabled: return S.outboxDisabled
        case .recentSignInRequired: return S.recentSignInRequired
        case .lastCredential: return S.lastCredential
        case .credentialNotFound: return S.credentialNotFound
        case .providerUnavailable: return S.providerUnavailable
        case .passwordHashingBusy: return S.passwordHashingBusy
        case .mailUnavailable: return S.mailUnavailable
        case .appleUnavailable: return S.appleUnavailable
        }
    }
}

extension RPCRouter {
    /// Registers `handler` for `method`, answering an `IdentityError` with its status (`IdentityRoutes.rpcError`).
    /// An `RPCError` passes through unchanged; anything else the runtime answers as `internal`, logging the detail.
    fileprivate mutating func route<Request, Response>(
        _ method: RPCMethod<Request, Response>,
        _ handler: @escaping @Sendable (Request) async throws -> Response
    ) {
        register(method, mapping: IdentityError.self, handler)
    }
}

extension IdentityError: RPCStatusMapping {
    var rpcError: RPCError { IdentityRoutes.rpcError(self) }
}

extension BatchOutcome {
    /// Done when there is no refusal, otherwise the refusal's status and message.
    fileprivate init(_ refusal: IdentityError?) {
        self.init(status: refusal.map { IdentityRoutes.status(of: $0.code) }, message: refusal?.message ?? "")
    }
}
