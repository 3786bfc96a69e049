import Foundation
import FoyerAPI
import FoyerLifecycle
import FoyerRPC
import FoyerWire

extension Sweeper {
    /// Finishes accounts left in `merging` or `deleting` for longer than the grace, the longest-stuck first.
    ///
    /// identity's list has no cursor: accounts that fail stay at its head. So each page asks for `batchSize` more
    /// than this sweep has already tried and works on the ones not tried yet.
    func recoverStuckAccounts(_ tally: inout SweepTally) async {
        var tried: Set<String> = []
        for _ in 0..<configuration.pagesPerSweep {
            guard !shouldStop else { return }
            let limit = min(IdentityLimits.listCountMax, tried.count + configuration.batchSize)
            let page: StuckAccounts
            do {
                page = try await identity.call(
                    IdentityMethods.listStuckAccounts,
                    ListStuckAccountsRequest(olderThanSeconds: graceSeconds, limit: UInt32(limit))
                )
            } catch {
                logger.error("listing stuck accounts failed", metadata: ["error": "\(error)"])
                tally.fail("listing stuck accounts", error)
                return
            }
            if tried.isEmpty {
                // identity lists the longest-stuck first.
                let since = page.accounts.first?.sinceMilliseconds.map {
                    Date(timeIntervalSince1970: Double($0) / 1000)
                }
                CleanupMetrics.oldestStuckAccount(seconds: since.map { now.timeIntervalSince($0) } ?? 0)
            }
            let fresh = page.accounts.filter { !tried.contains($0.uid) }.prefix(configuration.batchSize)
            for account in fresh {
                guard !shouldStop else { return }
                tried.insert(account.uid)
                let outcome = await whileClaimed(account.uid) { await finish(account) }
                tally.add(outcome, finished: \.stuckFinished)
                if outcome.upstreamUnreachable { return }
            }
            if fresh.isEmpty || page.accounts.count < limit || limit == IdentityLimits.listCountMax { return }
        }
    }

    /// Finishes one stuck account through the same entry point a client's retry takes (`AccountSagas.resume`): a
    /// merge under the policy the client chose, a deletion with the reason it began with.
    private func finish(_ account: AccountState) async -> AccountOutcome {
        guard account.kind != .active else { return .skipped }
        let what = account.kind == .merging ? "merge" : "deletion"
        do {
            _ = try await sagas.resume(account)
            logger.info(
                "interrupted \(what) finished",
                metadata: ["user.uid": "\(account.uid)", "operation.id": "\(account.operationID ?? "-")"]
            )
            return .finished
        } catch let error as RPCError
            where error.status == IdentityStatus.userNotFound || error.status == IdentityStatus.operationConflict
        {
            // Finished or changed by someone else since it was listed.
            logger.debug(
                "stuck account changed meanwhile",
                metadata: ["user.uid": "\(account.uid)", "error": "\(error)"]
            )
            return .skipped
        } catch {
            logger.warning(
                "finishing an interrupted \(what) failed; the next sweep goes on",
                metadata: [
                    "user.uid": "\(account.uid)", "operation.id": "\(account.operationID ?? "-")", "error": "\(error)",
                ]
            )
            return .failed("finishing an interrupted \(what) (operation \(account.operationID ?? "-"))", error)
        }
    }
}
