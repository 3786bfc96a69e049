import FoyerClient
import Synchronization

/// The state every virtual user of one run shares: the bounds, the rate, the connections, the recorder, and
/// whether the run is stopping.
final class LoadRun: Sendable {
    let plan: LoadPlan
    let recorder: LoadRecorder
    let start: ContinuousClock.Instant
    /// One client per connection; virtual users' clients share them (and only these are shut down).
    let connections: [FoyerClient]
    /// Names this run's accounts apart from other runs'.
    let runID: String
    private let tokens: TokenDispenser?
    private let requestsStarted = Atomic<Int>(0)
    private let accountsMade = Atomic<Int>(0)
    private let anySucceeded = Atomic<Bool>(false)
    private let stopping = Atomic<Bool>(false)
    private let stopReasonText = Mutex<String?>(nil)

    init(
        plan: LoadPlan,
        connections: [FoyerClient],
        recorder: LoadRecorder = LoadRecorder(),
        start: ContinuousClock.Instant = .now
    ) {
        self.plan = plan
        self.recorder = recorder
        self.connections = connections
        self.start = start
        self.runID = String(OperationID.make().lowercased().filter { $0.isLetter || $0.isNumber }.prefix(10))
        self.tokens = plan.rate.map { TokenDispenser(schedule: RateSchedule(rate: $0), start: start) }
    }

    var elapsed: Duration { ContinuousClock.now - start }

    /// Whether a virtual user may begin another iteration: not stopping, under the request bound, before the end.
    var mayStartIteration: Bool {
        if stopping.load(ordering: .relaxed) { return false }
        if let limit = plan.requests, requestsStarted.load(ordering: .relaxed) >= limit { return false }
        if let duration = plan.duration, elapsed >= duration { return false }
        return true
    }

    /// Waits for the rate's next token (if there is a rate) and counts a request as started.
    func beginRequest() async {
        await tokens?.take()
        requestsStarted.add(1, ordering: .relaxed)
    }

    /// Records an answered request; an error that makes the whole run pointless stops it.
    func record(_ operation: LoadOperation, error: FoyerError?, expecting: Set<FoyerError>, latency: Duration) {
        let outcome = LoadOutcome.classify(error, expecting: expecting)
        recorder.record(operation, outcome, latency: latency, elapsed: elapsed)
        guard case .error = outcome, let error else {
            anySucceeded.store(true, ordering: .relaxed)
            return
        }
        let succeeded = anySucceeded.load(ordering: .relaxed)
        if let reason = LoadOutcome.stopReason(for: error, operation: operation, anySucceeded: succeeded) {
            stop(reason)
        }
    }

    /// Stops the run: no iteration starts any more. The first reason given is kept.
    func stop(_ reason: String) {
        stopReasonText.withLock { $0 = $0 ?? reason }
        stopping.store(true, ordering: .relaxed)
    }

    var stopReason: String? { stopReasonText.withLock { $0 } }

    /// A number no other account of this run has (for source addresses and email addresses).
    func nextAccountNumber() -> Int {
        accountsMade.add(1, ordering: .relaxed).oldValue
    }
}
