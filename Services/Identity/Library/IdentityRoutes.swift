import FoyerAPI
import FoyerRPC
import FoyerWire

/// Registers every identity method on a router, each calling its handler on the core.
enum IdentityRoutes {
    static func register(_ core: IdentityCore, on router: inout RPCRouter) {
        typealias M = IdentityMethods
        router.register(M.createGuest) { request, _ in try await core.createGuest(request) }
        router.register(M.refreshSession) { request, _ in try await core.refreshSession(request) }
        router.register(M.verifyAccessToken) { request, _ in try await core.verifyAccessToken(request) }
        router.register(M.revokeSession) { request, _ in
            try await core.revokeSession(request)
            return Empty()
        }
        router.register(M.revokeAllSessions) { request, _ in
            try await core.revokeAllSessions(request)
            return Empty()
        }
        router.register(M.getJWKS) { _, _ in try core.jwks() }
        router.register(M.rotateSigningKey) { _, _ in try await core.rotateSigningKey() }
        router.register(M.getUser) { request, _ in try await core.getUser(request) }
        router.register(M.recordActivity) { request, _ in
            try await core.recordActivity(request)
            return Empty()
        }
        router.register(M.linkPassword) { request, _ in try await core.linkPassword(request) }
        router.register(M.signInWithPassword) { request, _ in try await core.signInWithPassword(request) }
        router.register(M.startEmailLink) { request, _ in
            try await core.startEmailLink(request)
            return Empty()
        }
        router.register(M.completeEmailLink) { request, _ in try await core.completeEmailLink(request) }
        router.register(M.listOutbox) { request, _ in try await core.listOutbox(request) }
        router.register(M.signInWithProvider) { request, _ in try await core.signInWithProvider(request) }
        router.register(M.linkProvider) { request, _ in try await core.linkProvider(request) }
        router.register(M.redeemConflictTicket) { request, _ in try await core.redeemConflictTicket(request) }
        router.register(M.beginMerge) { request, _ in try await core.beginMerge(request) }
        router.register(M.finishMerge) { request, _ in
            try await core.finishMerge(request)
            return Empty()
        }
        router.register(M.beginDelete) { request, _ in try await core.beginDelete(request) }
        router.register(M.finishDelete) { request, _ in
            try await core.finishDelete(request)
            return Empty()
        }
        router.register(M.beginDeleteBatch) { request, _ in
            Batch(try await core.beginDeleteBatch(try Self.nonEmpty(request.elements)))
        }
        router.register(M.finishDeleteBatch) { request, _ in
            Batch(try await core.finishDeleteBatch(try Self.nonEmpty(request.elements)))
        }
        router.register(M.listStuckAccounts) { request, _ in try await core.listStuckAccounts(request) }
        router.register(M.listExpiredGuests) { request, _ in try await core.listExpiredGuests(request) }
    }

    /// A batch of no element is a caller's mistake, not a batch that did nothing.
    private static func nonEmpty<Element>(_ elements: [Element]) throws -> [Element] {
        guard !elements.isEmpty else {
            throw RPCError.invalidArgument("a batch holds 1-\(BatchLimits.countMax) elements")
        }
        return elements
    }
}
