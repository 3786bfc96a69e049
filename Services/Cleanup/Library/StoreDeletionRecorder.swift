import Foundation
import FoyerAPI
import FoyerLifecycle
import FoyerRPC

/// cleanup's side of `DeletionRecorder`: writes the record to its own store, under the pseudonymous id. Used by
/// cleanup's own deletions and merges (through `AccountSagas`) and by the `recordDeletion` method the gateway
/// calls.
struct StoreDeletionRecorder: DeletionRecorder {
    let store: CleanupStore
    let pseudonyms: Pseudonymizer
    let now: @Sendable () -> Date

    func recordDeletion(uid: String, operationID: String, reason: DeletionReason, options: CallOptions) async throws {
        try await store.recordDeletion(
            subject: pseudonyms.subject(uid: uid),
            operationKey: pseudonyms.operationKey(operationID),
            reason: reason,
            at: now()
        )
    }

    func recordDeletions(_ users: [UserOperation], reason: DeletionReason, options: CallOptions) async throws {
        try await store.recordDeletions(
            users.map {
                (subject: pseudonyms.subject(uid: $0.uid), operationKey: pseudonyms.operationKey($0.operationID))
            },
            reason: reason,
            at: now()
        )
    }
}
