import Foundation
import FoyerAPI
import FoyerLifecycle
import FoyerRPC
import FoyerWire
import Logging
import ServiceLifecycle
import Synchronization

/// One sweep: finish accounts stuck in `merging` or `deleting`, delete guests idle past the TTL, drop deletion
/// records past the retention, and have user-data and guest-quota prune their records past theirs. Every step is bounded (pages of `batchSize`, `pagesPerSweep` pages) and idempotent,
/// so a sweep that stops anywhere (an upstream down, a crash, a shutdown) leaves nothing the next one cannot finish.
///
/// A failure on one account is counted and logged, and the sweep goes on with the next; a failure to list (identity
/// down), or an account failing because an upstream cannot be reached (`unavailable`), ends that part of the sweep.
final class Sweeper: Sendable {
    let configuration: CleanupConfiguration
    let store: CleanupStore
    let pseudonyms: Pseudonymizer
    let sagas: AccountSagas
    let logger: Logger
    /// Operations whose app hook refused, by operation id: how often, and when to try again (in memory: a restarted
    /// replica tries each once more at once).
    let appWaits = Mutex<[String: AppWait]>([:])
    private let gate = SweepGate()
    private let state = Mutex(State())

    private struct State {
        var running = false
        var lastSweep: SweepReport?
        var observers: [UInt64: AsyncStream<SweepReport>.Continuation] = [:]
        var nextObserver: UInt64 = 0
    }

    init(
        configuration: CleanupConfiguration,
        store: CleanupStore,
        pseudonyms: Pseudonymizer,
        sagas: AccountSagas,
        logger: Logger
    ) {
        self.configuration = configuration
        self.store = store
        self.pseudonyms = pseudonyms
        self.sagas = sagas
        self.logger = logger
    }

    var identity: RPCClient { sagas.identity }
    var now: Date { configuration.now() }

    /// Whether a (non-dry) sweep of this replica runs now, and the last sweep any replica finished (from the
    /// database; this replica's own last one when the database cannot say).
    func status() async -> CleanupStatusResponse {
        let (running, ownLast) = state.withLock { ($0.running, $0.lastSweep) }
        do {
            let last = try await store.lastSweep()
            return CleanupStatusResponse(running: running, lastSweep: last ?? ownLast)
        } catch {
            logger.warning("reading the last sweep failed", metadata: ["error": "\(error)"])
            return CleanupStatusResponse(running: running, lastSweep: ownLast)
        }
    }

    /// The reports of the sweeps this replica finishes from now on (not dry runs).
    func reports() -> AsyncStream<SweepReport> {
        let (stream, continuation) = AsyncStream.makeStream(of: SweepReport.self, bufferingPolicy: .bufferingNewest(16))
        let id = state.withLock { state in
            defer { state.nextObserver += 1 }
            state.observers[state.nextObserver] = continuation
            return state.nextObserver
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.state.withLock { $0.observers.removeValue(forKey: id) }
        }
        return stream
    }

    /// Ends every report stream (the service is closing).
    func finishReports() {
        let observers = state.withLock { state in
            defer { state.observers = [:] }
            return Array(state.observers.values)
        }
        for observer in observers { observer.finish() }
    }

    /// Sweeps now, after any sweep of this replica already running; or, dry, counts what a sweep would find and
    /// changes nothing.
    func sweep(dryRun: Bool) async -> SweepReport {
        if dryRun { return await countOnly() }
        return await gate.withExclusiveAccess { await self.sweepAlone() }
    }

    private func sweepAlone() async -> SweepReport {
        let started = now
        var tally = SweepTally()
        guard !Task.isCancelled else {
            // The caller gave up while waiting for the previous sweep: nothing to do, nothing to report as done.
            tally.fail("the sweep", CancellationError())
            let at = started.wireMilliseconds
            return tally.report(dryRun: false, startedAtMilliseconds: at, finishedAtMilliseconds: at)
        }
        state.withLock { $0.running = true }
        await recoverStuckAccounts(&tally)
        await deleteExpiredGuests(idleBefore: started.subtracting(configuration.guestTTL), &tally)
        await purgeOldRecords(&tally)
        let report = tally.report(
            dryRun: false,
            startedAtMilliseconds: started.wireMilliseconds,
            finishedAtMilliseconds: now.wireMilliseconds
        )
        CleanupMetrics.swept(report)
        do {
            try await store.saveSweep(report, replica: configuration.replicaID)
        } catch {
            logger.warning("keeping the sweep's report failed", metadata: ["error": "\(error)"])
        }
        let observers = state.withLock { state in
            state.running = false
            state.lastSweep = report
            return Array(state.observers.values)
        }
        for observer in observers { observer.yield(report) }
        logger.log(
            level: report.errors > 0 ? .warning : report.expiredGuests + report.stuckFinished > 0 ? .info : .debug,
            "sweep finished",
            metadata: [
                "sweep.expired": "\(report.expiredGuests)", "sweep.stuckFinished": "\(report.stuckFinished)",
                "sweep.skipped": "\(report.skipped)", "sweep.errors": "\(report.errors)",
                "sweep.recordsPurged": "\(report.recordsPurged)",
                "sweep.durationMilliseconds": "\(report.durationMilliseconds)",
            ]
        )
        return report
    }

    /// A sweep stops between accounts when its task is cancelled (a caller's deadline) or the process shuts down.
    var shouldStop: Bool { Task.isCancelled || Task.isShuttingDownGracefully }

    /// Runs `body` on `uid` if this replica wins the claim on it, then gives the claim up. Another replica's claim
    /// makes the account `skipped`.
    func whileClaimed(_ uid: String, _ body: () async -> AccountOutcome) async -> AccountOutcome {
        await whileClaimed([uid]) { claimed in claimed.isEmpty ? [] : [await body()] }[0]
    }

    /// Runs `body` on those of `uids` whose claims this replica wins (in one transaction), then gives the claims
    /// up. `body` answers one outcome per uid it is given; the others are `skipped` (another replica works on them).
    func whileClaimed(_ uids: [String], _ body: ([String]) async -> [AccountOutcome]) async -> [AccountOutcome] {
        let subjects = uids.map { pseudonyms.subject(uid: $0) }
        let replica = configuration.replicaID
        let now = self.now
        let won: Set<String>
        do {
            won = try await store.claim(
                subjects: subjects,
                replica: replica,
                now: now,
                staleBefore: now.subtracting(configuration.claimLifetime)
            )
        } catch {
            logger.error("claiming accounts failed", metadata: ["error": "\(error)"])
            return uids.map { _ in .failed("claiming an account in cleanup's database", error) }
        }
        let claimed = uids.indices.filter { won.contains(subjects[$0]) }
        var outcomes = [AccountOutcome](repeating: .skipped, count: uids.count)
        if !claimed.isEmpty {
            let answered = await whileRenewing(claimed.map { subjects[$0] }) { await body(claimed.map { uids[$0] }) }
            for (index, outcome) in zip(claimed, answered) { outcomes[index] = outcome }
        }
        do {
            try await store.release(subjects: claimed.map { subjects[$0] }, replica: replica)
        } catch {
            // The claims expire by themselves after the claim lifetime.
            logger.warning("releasing claims failed", metadata: ["error": "\(error)"])
        }
        return outcomes
    }

    /// Runs `body` while renewing this replica's claims on `subjects` every third of the claim lifetime, so that a
    /// slow account (an app hook that takes its time) keeps its claim and a dead replica's claims lapse soon.
    private func whileRenewing<T: Sendable>(_ subjects: [String], _ body: () async -> T) async -> T {
        let replica = configuration.replicaID
        let interval = configuration.claimLifetime / 3
        return await withTaskGroup(of: Void.self) { group in
            group.addTask { [store, logger] in
                while !Task.isCancelled {
                    do {
                        try await Task.sleep(for: interval)
                        try await store.renew(subjects: subjects, replica: replica, now: self.now)
                    } catch is CancellationError {
                        return
                    } catch {
                        logger.warning("renewing claims failed", metadata: ["error": "\(error)"])
                    }
                }
            }
            let result = await body()
            group.cancelAll()
            return result
        }
    }

    /// Runs `work` on each batch of accounts, `configuration.deletionConcurrency` batches at once, counting each
    /// account's outcome in `tally`. Starts no further batch once the sweep should stop or an outcome says an
    /// upstream cannot be reached (going on would only leave more accounts half-done); those already running
    /// finish. Returns whether it stopped early.
    func forEach(
        _ batches: [[String]],
        finished: WritableKeyPath<SweepTally, UInt64>,
        _ tally: inout SweepTally,
        _ work: @escaping @Sendable ([String]) async -> [AccountOutcome]
    ) async -> Bool {
        await withTaskGroup(of: [AccountOutcome].self) { group in
            var pending = batches.makeIterator()
            var stopped = false
            func startNext() -> Bool {
                guard !stopped, !shouldStop, let batch = pending.next() else { return false }
                group.addTask { await work(batch) }
                return true
            }
            for _ in 0..<configuration.deletionConcurrency where !startNext() { break }
            while let outcomes = await group.next() {
                for outcome in outcomes {
                    tally.add(outcome, finished: finished)
                    if outcome.upstreamUnreachable { stopped = true }
                }
                _ = startNext()
            }
            return stopped || shouldStop
        }
    }

    // MARK: Retention

    /// Deletes records older than the retention, and claims left by replicas that died, at most
    /// `batchSize * pagesPerSweep` of each.
    private func purgeOldRecords(_ tally: inout SweepTally) async {
        let now = self.now
        do {
            for _ in 0..<configuration.pagesPerSweep {
                let purged = try await store.purgeDeletions(
                    before: now.subtracting(configuration.recordRetention),
                    limit: configuration.batchSize
                )
                tally.recordsPurged += UInt64(purged)
                if purged < configuration.batchSize || shouldStop { break }
            }
            _ = try await store.purgeClaims(
                before: now.subtracting(configuration.claimLifetime),
                limit: configuration.batchSize
            )
        } catch {
            logger.error("purging old records failed", metadata: ["error": "\(error)"])
            tally.fail("purging old records", error)
        }
        await pruneUpstream("user-data", sagas.userData, UserDataMethods.prune)
        await pruneUpstream("guest-quota", sagas.guestQuota, GuestQuotaMethods.prune)
    }

    /// Asks `service` to remove its records past their retention (merge records, deletion tombstones, put and
    /// consume keys: what still names a uid after the user is gone), `batchSize` rows of each kind per call, at
    /// most `pagesPerSweep` calls. A failure is logged and not counted in the report: no account waits on it, and
    /// the next sweep prunes what this one left.
    private func pruneUpstream(
        _ service: String,
        _ client: RPCClient,
        _ method: RPCMethod<PruneRequest, PruneResponse>
    ) async {
        var removed: UInt64 = 0
        do {
            for _ in 0..<configuration.pagesPerSweep {
                let answer = try await client.call(method, PruneRequest(limit: UInt64(configuration.batchSize)))
                removed += answer.removed
                if answer.removed == 0 || shouldStop { break }
            }
        } catch {
            logger.warning(
                "pruning \(service)'s expired records failed; the next sweep goes on",
                metadata: ["error": "\(error)"]
            )
        }
        if removed > 0 {
            logger.debug("pruned \(service)'s expired records", metadata: ["pruned": "\(removed)"])
        }
    }

    // MARK: Dry run

    /// Counts guests idle past the TTL (up to `dryRunCountMax`) and accounts stuck past the grace (up to 1000).
    private func countOnly() async -> SweepReport {
        let started = now
        var tally = SweepTally()
        let cutoff = started.subtracting(configuration.guestTTL).wireMilliseconds
        do {
            var cursor: ExpiredGuest?
            repeat {
                let page = try await identity.call(
                    IdentityMethods.listExpiredGuests,
                    ListExpiredGuestsRequest(
                        idleBeforeMilliseconds: cutoff,
                        limit: UInt32(IdentityLimits.listCountMax),
                        after: cursor
                    )
                )
                tally.expiredGuests += UInt64(page.guests.count)
                cursor = page.next
            } while cursor != nil && tally.expiredGuests < UInt64(configuration.dryRunCountMax) && !Task.isCancelled
            tally.expiredGuests = min(tally.expiredGuests, UInt64(configuration.dryRunCountMax))
        } catch {
            tally.fail("listing expired guests", error)
        }
        do {
            let stuck = try await identity.call(
                IdentityMethods.listStuckAccounts,
                ListStuckAccountsRequest(olderThanSeconds: graceSeconds, limit: UInt32(IdentityLimits.listCountMax))
            )
            tally.stuckFinished = UInt64(stuck.accounts.count)
        } catch {
            tally.fail("listing stuck accounts", error)
        }
        return tally.report(
            dryRun: true,
            startedAtMilliseconds: started.wireMilliseconds,
            finishedAtMilliseconds: now.wireMilliseconds
        )
    }

    var graceSeconds: UInt64 {
        UInt64(max(0, configuration.recoveryGrace.components.seconds))
    }
}

extension Date {
    /// Milliseconds since the Unix epoch, for the wire.
    var wireMilliseconds: UInt64 { UInt64(max(0, (timeIntervalSince1970 * 1000).rounded(.down))) }

    func subtracting(_ duration: Duration) -> Date {
        let (seconds, attoseconds) = duration.components
        return addingTimeInterval(-(TimeInterval(seconds) + TimeInterval(attoseconds) / 1e18))
    }
}
