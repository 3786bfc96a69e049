public import FoyerClient
public import Logging

/// How a run is going, for a progress line.
public struct LoadProgress: Sendable {
    public var elapsed: Duration
    public var requests: UInt64
    public var errors: UInt64
    /// Requests answered in the last whole second.
    public var lastSecondRequests: UInt64
}

/// Runs a `LoadPlan` against a gateway: `concurrency` virtual users, each with the scenario's script, over
/// `connections` connections, until the duration or request bound (iterations under way finish, so no account is
/// left half made), or until an error shows the run is pointless (see `LoadOutcome.stopReason`).
public struct LoadRunner: Sendable {
    public let plan: LoadPlan
    public let configuration: FoyerClientConfiguration
    public let logger: Logger
    /// Where the run records every request; whoever passed it may take interval reports from it while the run goes
    /// on (``LoadRecorder/takeReport(plan:elapsed:)``), and the run's own report then covers what came after. One
    /// run per recorder.
    public let recorder: LoadRecorder

    /// - Parameters:
    ///   - configuration: the gateway and call settings; `connectionsMax` is set to one per client, as the plan's
    ///     `connections` are the clients.
    ///   - recorder: a recorder of the caller's, to read reports from during the run (a soak's minutes); by
    ///     default a new one.
    public init(
        plan: LoadPlan,
        configuration: FoyerClientConfiguration,
        logger: Logger,
        recorder: LoadRecorder = LoadRecorder()
    ) {
        self.plan = plan
        self.configuration = configuration
        self.logger = logger
        self.recorder = recorder
    }

    /// Runs the plan and reports; `progress` is called about once a second while it runs.
    public func run(progress: (@Sendable (LoadProgress) -> Void)? = nil) async -> LoadReport {
        var configuration = configuration
        configuration.connectionsMax = 1
        let connections = (0..<plan.connections).map { _ in
            FoyerClient(configuration: configuration, logger: logger)
        }
        let run = LoadRun(plan: plan, connections: connections, recorder: recorder)
        await withTaskGroup(of: Void.self) { group in
            if let progress {
                group.addTask { await Self.report(run, to: progress) }
            }
            await withTaskGroup(of: Void.self) { users in
                for index in 0..<plan.concurrency {
                    users.addTask { await Self.runUser(VirtualUser(index: index, run: run)) }
                }
            }
            group.cancelAll()
        }
        let elapsed = run.elapsed
        for connection in connections { await connection.shutdown() }
        return run.recorder.report(plan: plan, elapsed: elapsed, stopReason: run.stopReason)
    }

    private static func runUser(_ user: VirtualUser) async {
        let script = user.run.plan.scenario.script(for: user)
        do {
            try await script.setUp()
        } catch {
            user.run.recorder.iterationEnded(completed: false)
            return
        }
        while user.run.mayStartIteration, !Task.isCancelled {
            do {
                try await script.iterate()
                user.run.recorder.iterationEnded(completed: true)
            } catch {
                user.run.recorder.iterationEnded(completed: false)
            }
        }
        await script.tearDown()
    }

    private static func report(_ run: LoadRun, to progress: @Sendable (LoadProgress) -> Void) async {
        var tick = run.start
        while !Task.isCancelled {
            tick += .seconds(1)
            do { try await Task.sleep(until: tick, clock: .continuous) } catch { return }
            let elapsed = run.elapsed
            let (requests, errors) = run.recorder.counts
            let second = Int(elapsed.components.seconds) - 1
            progress(
                LoadProgress(
                    elapsed: elapsed,
                    requests: requests,
                    errors: errors,
                    lastSecondRequests: run.recorder.requests(inSecond: second)
                )
            )
        }
    }
}
