import Foundation
import FoyerAPI
import FoyerLifecycle
import FoyerRPC
import FoyerWire

extension Sweeper {
    /// Deletes guests whose last activity is before `cutoff`, oldest first, page by page along identity's cursor.
    /// A deleted guest leaves the list, so the cursor stays valid; a skipped or failed one stays behind it and is
    /// met again by the next sweep.
    func deleteExpiredGuests(idleBefore cutoff: Date, _ tally: inout SweepTally) async {
        let cutoffMilliseconds = cutoff.wireMilliseconds
        var cursor: ExpiredGuest?
        for _ in 0..<configuration.pagesPerSweep {
            guard !shouldStop else { return }
            let page: ExpiredGuests
            do {
                page = try await identity.call(
                    IdentityMethods.listExpiredGuests,
                    ListExpiredGuestsRequest(
                        idleBeforeMilliseconds: cutoffMilliseconds,
                        limit: UInt32(configuration.batchSize),
                        after: cursor
                    )
                )
            } catch {
                logger.error("listing expired guests failed", metadata: ["error": "\(error)"])
                tally.fail("listing expired guests", error)
                return
            }
            let batches = Self.split(page.guests.map(\.uid), into: configuration.deletionConcurrency)
            let lastActivity = Dictionary(page.guests.map { ($0.uid, $0.lastActivityAtMilliseconds) }) { $1 }
            let stopped = await forEach(batches, finished: \.expiredGuests, &tally) { uids in
                await self.whileClaimed(uids) { claimed in
                    await self.deleteExpiredGuests(
                        claimed,
                        idleBeforeMilliseconds: cutoffMilliseconds,
                        lastActivity: lastActivity
                    )
                }
            }
            if stopped { return }
            guard let next = page.next else { return }
            cursor = next
        }
    }

    /// Delete-everything of a batch of guests, each under its TTL operation id; identity refuses a guest that was
    /// active after the cutoff or linked a credential since it was listed, and the others are deleted together. Each
    /// deleted guest's time since its last activity (as listed, from `lastActivity`) goes to ``CleanupMetrics``.
    private func deleteExpiredGuests(
        _ uids: [String],
        idleBeforeMilliseconds: UInt64,
        lastActivity: [String: UInt64]
    ) async -> [AccountOutcome] {
        let users = uids.map { UserOperation(uid: $0, operationID: pseudonyms.ttlOperationID(uid: $0)) }
        let results: [Result<UInt64, RPCError>]
        do {
            results = try await sagas.deleteEverything(
                users,
                reason: .ttl,
                idleBeforeMilliseconds: idleBeforeMilliseconds
            )
        } catch {
            logger.warning(
                "deleting a batch of expired guests failed; the next sweep goes on",
                metadata: ["batch.size": "\(users.count)", "error": "\(error)"]
            )
            return users.map { _ in .failed("deleting a batch of expired guests", error) }
        }
        return zip(users, results).map { user, result in
            switch result {
            case .success(let documents):
                if let last = lastActivity[user.uid] {
                    CleanupMetrics.deletedGuest(idleSeconds: now.timeIntervalSince1970 - Double(last) / 1000)
                }
                logger.debug(
                    "expired guest deleted",
                    metadata: [
                        "user.uid": "\(user.uid)", "operation.id": "\(user.operationID)", "documents": "\(documents)",
                    ]
                )
                return .finished
            case .failure(let error) where Self.leftAlone.contains(error.status):
                logger.debug(
                    "expired guest left alone",
                    metadata: ["user.uid": "\(user.uid)", "reason": "\(IdentityStatus.name(of: error.status))"]
                )
                return .skipped
            case .failure(let error):
                logger.warning(
                    "deleting an expired guest failed; the next sweep goes on",
                    metadata: ["user.uid": "\(user.uid)", "operation.id": "\(user.operationID)", "error": "\(error)"]
                )
                return .failed("deleting an expired guest (operation \(user.operationID))", error)
            }
        }
    }

    /// `uids` in at most `parts` batches of nearly equal size, in order.
    static func split(_ uids: [String], into parts: Int) -> [[String]] {
        guard !uids.isEmpty else { return [] }
        let size = (uids.count + max(1, parts) - 1) / max(1, parts)
        return stride(from: 0, to: uids.count, by: size).map { Array(uids[$0..<min($0 + size, uids.count)]) }
    }

    /// Identity's answers that mean "not for the clean-up": the guest was active after the cutoff or linked
    /// (`guest-still-active`), is gone (`user-not-found`), or is being merged or deleted under another operation
    /// (`operation-conflict`; the recovery finishes that one if it gets stuck).
    static let leftAlone: Set<RPCStatus> = [
        IdentityStatus.guestStillActive, IdentityStatus.userNotFound, IdentityStatus.operationConflict,
    ]
}
