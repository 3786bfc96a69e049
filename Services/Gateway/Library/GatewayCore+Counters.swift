import FoyerAPI
import FoyerRPC
import FoyerWire

extension GatewayCore {
    /// The counters an app defines in the plans file (`transactions`, `uploads`), consumed and released for the
    /// caller through guest-quota's own `consume` and `release`: the same limit check, the same idempotency.
    func registerCounters(on router: inout RPCRouter) {
        serve(GatewayMethods.consumeCounter, on: &router) { request, caller, options in
            try self.checkAppCounter(request)
            let answer = try await self.opConflictAsReused {
                try await self.guestQuota.call(
                    GuestQuotaMethods.consume,
                    ConsumeRequest(
                        uid: caller.uid,
                        charges: [
                            QuotaCharge(
                                counter: request.counter,
                                amount: Int64(request.amount),
                                idempotencyKey: AppCounterKeys.consume(request.idempotencyKey)
                            )
                        ]
                    ),
                    options: options
                )
            }
            guard let usage = answer.usage.first else { throw RPCError(.internal, "a consume answered no counter") }
            return usage
        }
        serve(GatewayMethods.releaseCounter, on: &router) { request, caller, options in
            try self.checkAppCounter(request)
            let answer: RefundResponse
            do {
                answer = try await self.guestQuota.call(
                    GuestQuotaMethods.release,
                    ReleaseRequest(
                        uid: caller.uid,
                        counter: request.counter,
                        amount: request.amount,
                        idempotencyKey: AppCounterKeys.release(request.idempotencyKey)
                    ),
                    options: options
                )
            } catch let error as RPCError where error.status == GuestQuotaStatus.accountNotFound {
                // A guest that has consumed nothing has no quota account yet: nothing to give back.
                return try await self.counterUsage(request.counter, uid: caller.uid, options: options)
            }
            if let usage = answer.usage { return usage }
            return try await self.counterUsage(request.counter, uid: caller.uid, options: options)
        }
    }

    /// Refuses the counters the gateway charges itself: a client that could release its own `documents` would
    /// store without limit.
    private func checkAppCounter(_ request: GatewayCounterRequest) throws {
        let counter = request.counter
        guard counter != configuration.documentsCounter, counter != configuration.bytesCounter,
            !counter.contains(AppCounterKeys.scopeSeparator)
        else {
            throw RPCError(
                GatewayStatus.counterReserved,
                "'\(counter)' is charged by the gateway itself (documents, bytes, documents:<collection>)"
            )
        }
        guard GuestQuotaLimits.isValidOperationKey(request.idempotencyKey) else {
            throw RPCError.invalidArgument("the idempotency key must be 1-128 bytes of visible ASCII")
        }
    }

    /// The counter as it stands in the caller's plan (the guest plan for a guest without a quota account).
    private func counterUsage(_ counter: String, uid: String, options: CallOptions) async throws -> CounterUsage {
        let usage = try await guestQuota.call(GuestQuotaMethods.usage, QuotaUsageRequest(uid: uid), options: options)
        guard let found = usage.counters.first(where: { $0.counter == counter }) else {
            throw RPCError(GuestQuotaStatus.unknownCounter, "plan '\(usage.plan)' has no counter '\(counter)'")
        }
        return found
    }

    /// guest-quota's `op-conflict` on an app counter: the key was used for another counter or amount, or it was a
    /// consume that has been given back. For the client, its key came back with another request.
    private func opConflictAsReused<T>(_ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch let error as RPCError where error.status == GuestQuotaStatus.opConflict {
            throw RPCError(GatewayStatus.operationReused, "this idempotency key was used for a different consume")
        }
    }
}

/// The quota keys of the app's counters, derived from the client's idempotency key: prefixed apart from every key
/// the gateway uses for its own charges (`put-doc:`, `put-bytes:`, `put-col:`, `put:`, `del:`), a consume's apart from a
/// release's, and hashed so that any key the client sends stays within guest-quota's 128 printable bytes.
enum AppCounterKeys {
    /// What separates a scope in a counter's name (`documents:notes`); app counters never have it.
    static let scopeSeparator: Character = ":"

    static func consume(_ idempotencyKey: String) -> String { "app-consume:" + QuotaKeys.hex(idempotencyKey) }
    static func release(_ idempotencyKey: String) -> String { "app-release:" + QuotaKeys.hex(idempotencyKey) }
}
