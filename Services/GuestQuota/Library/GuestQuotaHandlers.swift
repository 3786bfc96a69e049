import FoyerAPI
import FoyerRPC
import FoyerWire

/// The RPC face of the store: checks what the contract leaves to the service (uid and key shapes, source
/// addresses), calls the store, and maps its refusals to statuses in one place.
struct GuestQuotaHandlers: Sendable {
    let store: GuestQuotaStore

    func register(on router: inout RPCRouter) {
        router.register(GuestQuotaMethods.admitSignup, mapping: GuestQuotaError.self) { request in
            guard let source = SignupSource(request.source) else {
                throw GuestQuotaError.invalidArgument("source '\(request.source)' is not an IPv4 or IPv6 address")
            }
            if let uid = request.uid { try checkUID(uid) }
            return try await store.admitSignup(source: source, opening: request.uid)
        }
        router.register(GuestQuotaMethods.openAccount, mapping: GuestQuotaError.self) { request in
            try checkUID(request.uid)
            return try await store.openAccount(uid: request.uid, planName: request.plan)
        }
        router.register(GuestQuotaMethods.changePlan, mapping: GuestQuotaError.self) { request in
            try checkUID(request.uid)
            return try await store.changePlan(uid: request.uid, planName: request.plan)
        }
        router.register(GuestQuotaMethods.consume, mapping: GuestQuotaError.self) { request in
            try checkUID(request.uid)
            for charge in request.charges { try checkKey(charge.idempotencyKey, field: "idempotencyKey") }
            return try await store.consume(uid: request.uid, charges: request.charges)
        }
        router.register(GuestQuotaMethods.refund, mapping: GuestQuotaError.self) { request in
            try checkAccountKey(uid: request.uid, key: request.idempotencyKey)
            return try await store.refund(uid: request.uid, key: request.idempotencyKey)
        }
        router.register(GuestQuotaMethods.prune, mapping: GuestQuotaError.self) { request in
            PruneResponse(removed: UInt64(try await store.pruneExpiredRows(limit: Int(request.limit))))
        }
        router.register(GuestQuotaMethods.release, mapping: GuestQuotaError.self) { request in
            try checkAccountKey(uid: request.uid, key: request.idempotencyKey)
            return try await store.release(
                uid: request.uid,
                counter: request.counter,
                amount: request.amount,
                key: request.idempotencyKey
            )
        }
        router.register(GuestQuotaMethods.usage, mapping: GuestQuotaError.self) { request in
            try checkUID(request.uid)
            return try await store.usage(uid: request.uid)
        }
        router.register(GuestQuotaMethods.feature, mapping: GuestQuotaError.self) { request in
            try checkUID(request.uid)
            return try await store.feature(uid: request.uid, feature: request.feature)
        }
        router.register(GuestQuotaMethods.merge, mapping: GuestQuotaError.self) { request in
            try checkUID(request.fromUID)
            try checkUID(request.toUID)
            try checkKey(request.op, field: "op")
            return try await store.merge(from: request.fromUID, to: request.toUID, op: request.op)
        }
        router.register(GuestQuotaMethods.deleteAll, mapping: GuestQuotaError.self) { request in
            try checkUID(request.uid)
            return try await store.deleteAll(uid: request.uid)
        }
        router.registerBatch(
            GuestQuotaMethods.deleteAllBatch,
            mapping: GuestQuotaError.self,
            elements: \.elements,
            countMax: BatchLimits.countMax,
            check: { element throws(GuestQuotaError) in try checkUID(element.uid) }
        ) { elements in Batch(try await store.deleteAll(uids: elements.map(\.uid))) }
        router.register(GuestQuotaMethods.stats, mapping: GuestQuotaError.self) { _ in try await store.stats() }
    }

    private func checkUID(_ uid: String) throws(GuestQuotaError) {
        guard GuestQuotaLimits.isValidUID(uid) else {
            throw .invalidArgument("uid must be 1-\(GuestQuotaLimits.uidByteCountMax) bytes of A-Z a-z 0-9 _ -")
        }
    }

    /// The checks of the counter changes (consume, refund, release): the account and the idempotency key.
    private func checkAccountKey(uid: String, key: String) throws(GuestQuotaError) {
        try checkUID(uid)
        try checkKey(key, field: "idempotencyKey")
    }

    private func checkKey(_ key: String, field: String) throws(GuestQuotaError) {
        guard GuestQuotaLimits.isValidOperationKey(key) else {
            throw .invalidArgument(
                "\(field) must be 1-\(GuestQuotaLimits.operationKeyByteCountMax) bytes of printable ASCII"
            )
        }
    }
}
