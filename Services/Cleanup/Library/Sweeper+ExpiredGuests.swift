import Foundation
import FoyerAPI
import FoyerAccountOps
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
            let stopped = await forEach(page.guests.map(\.uid), finished: \.expiredGuests, &tally) { uid in
                await self.whileClaimed(uid) {
                    await self.deleteExpiredGuest(uid, idleBeforeMilliseconds: cutoffMilliseconds)
                }
            }
            if stopped { return }
            guard let next = page.next else { return }
            cursor = next
        }
    }

    /// Delete-everything under the guest's TTL operation id, refused by identity if the guest was active after the
    /// cutoff or linked a credential since it was listed.
    private func deleteExpiredGuest(_ uid: String, idleBeforeMilliseconds: UInt64) async -> AccountOutcome {
        let operationID = pseudonyms.ttlOperationID(uid: uid)
        do {
            let documents = try await operations.deleteEverything(
                uid: uid,
                operationID: operationID,
                reason: .ttl,
                idleBeforeMilliseconds: idleBeforeMilliseconds
            )
            logger.info(
                "expired guest deleted",
                metadata: ["user.uid": "\(uid)", "operation.id": "\(operationID)", "documents": "\(documents)"]
            )
            return .finished
        } catch let error as RPCError where Self.leftAlone.contains(error.status) {
            logger.debug(
                "expired guest left alone",
                metadata: ["user.uid": "\(uid)", "reason": "\(IdentityStatus.name(of: error.status))"]
            )
            return .skipped
        } catch {
            logger.warning(
                "deleting an expired guest failed; the next sweep goes on",
                metadata: ["user.uid": "\(uid)", "operation.id": "\(operationID)", "error": "\(error)"]
            )
            return .failed("deleting an expired guest (operation \(operationID))", error)
        }
    }

    /// Identity's answers that mean "not for the clean-up": the guest was active after the cutoff or linked
    /// (`guest-still-active`), is gone (`user-not-found`), or is being merged or deleted under another operation
    /// (`operation-conflict`; the recovery finishes that one if it gets stuck).
    static let leftAlone: Set<RPCStatus> = [
        IdentityStatus.guestStillActive, IdentityStatus.userNotFound, IdentityStatus.operationConflict,
    ]
}
