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
                let waited = page.accounts.map { account in
                    account.sinceMilliseconds.map { now.timeIntervalSince1970 - Double($0) / 1000 } ?? 0
                }
                CleanupMetrics.oldestStuckAccount(seconds: waited.first ?? 0)
                let deadline = Double((configuration.appHooks?.deadline ?? .seconds(86_400)).components.seconds)
                CleanupMetrics.overdueOperations(waited.count { $0 >= deadline })
            }
            let fresh = page.accounts.filter { !tried.contains($0.uid) }.prefix(configuration.batchSize)
            for account in fresh {
                guard !shouldStop else { return }
                tried.insert(account.uid)
                if let operation = account.operationID, isWaitingOnApp(operation) { continue }
                let outcome = await whileClaimed(account.uid) { await finish(account) }
                noteApp(outcome, operation: account.operationID)
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

    /// Whether an operation whose app hook refused is still inside its backoff.
    private func isWaitingOnApp(_ operation: String) -> Bool {
        let now = self.now
        return appWaits.withLock { $0[operation].map { now < $0.next } ?? false }
    }

    /// Keeps an app hook's refusal (the next attempt after a wait that doubles with each, from one sweep interval to
    /// an hour), or forgets the operation once it went on.
    private func noteApp(_ outcome: AccountOutcome, operation: String?) {
        guard let operation else { return }
        guard case .failed(_, let error) = outcome, (error as? RPCError)?.status == GatewayStatus.operationInProgress
        else {
            _ = appWaits.withLock { $0.removeValue(forKey: operation) }
            return
        }
        let now = self.now
        let interval = configuration.sweepInterval
        appWaits.withLock { waits in
            // Bounded: a replica that has lost track of more than this starts over, trying each once more.
            if waits.count >= Self.appWaitsMax { waits.removeAll() }
            let failures = (waits[operation]?.failures ?? 0) + 1
            let wait = min(interval * (1 << min(failures - 1, 16)), .seconds(3600))
            waits[operation] = AppWait(
                failures: failures,
                next: now.addingTimeInterval(TimeInterval(wait.components.seconds))
            )
        }
    }

    static let appWaitsMax = 10_000
}

/// An operation waiting on the app's hook, for cleanup's backoff.
struct AppWait: Sendable {
    var failures: Int
    var next: Date
}
