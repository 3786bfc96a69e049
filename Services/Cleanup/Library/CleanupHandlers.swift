import FoyerAPI
import FoyerRPC
import FoyerWire

/// The methods of cleanup on the router. Store failures are not mapped: they answer `internal` (outcome unknown),
/// and every method here is safe to repeat except `sweep`, which is harmless to repeat anyway.
struct CleanupHandlers: Sendable {
    let sweeper: Sweeper
    let recorder: StoreDeletionRecorder

    func register(on router: inout RPCRouter) {
        router.register(CleanupMethods.status) { _, _ in
            await sweeper.status()
        }
        router.register(CleanupMethods.sweep) { request, _ in
            await sweeper.sweep(dryRun: request.dryRun)
        }
        router.register(CleanupMethods.recordDeletion) { request, context in
            guard !request.uid.isEmpty else { throw RPCError.invalidArgument("recordDeletion.uid is empty") }
            try await recorder.recordDeletion(
                uid: request.uid,
                operationID: request.operationID,
                reason: request.reason,
                options: CallOptions(deadline: context.deadline)
            )
            return Empty()
        }
        router.register(CleanupMethods.listDeletions) { request, _ in
            DeletionRecords(records: try await sweeper.store.deletions(limit: Int(request.limit)))
        }
    }
}
