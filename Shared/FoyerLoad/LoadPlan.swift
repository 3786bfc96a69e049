public import FoyerClient

/// A load run's settings, checked: a scenario, how long or how many requests, how many virtual users over how
/// many connections, and an optional rate.
public struct LoadPlan: Sendable {
    /// Without `--duration` or `--requests`, a run lasts this long.
    public static let defaultDuration: Duration = .seconds(10)

    public var scenario: LoadScenario
    /// No iteration starts after this long.
    public var duration: Duration?
    /// No iteration starts once this many requests were made (iterations under way finish, so the total can
    /// be a little higher).
    public var requests: Int?
    /// Virtual users, each running the scenario in a loop.
    public var concurrency: Int
    /// Connections to the gateway, shared round-robin by the virtual users.
    public var connections: Int
    /// Requests per second for all virtual users together; `nil` for as fast as answers come.
    public var rate: Double?
    /// Documents each guest writes before linking, in the merge scenario.
    public var documents: Int
    /// What was chosen for the user (defaults, adjustments), for the report.
    public var notes: [String] = []

    /// Checks the settings: every number more than zero; neither bound given means `defaultDuration` (and a note
    /// says so); more connections than virtual users are cut down to one each.
    public init(
        scenario: LoadScenario,
        duration: Duration? = nil,
        requests: Int? = nil,
        concurrency: Int = 10,
        connections: Int? = nil,
        rate: Double? = nil,
        documents: Int = 5
    ) throws(FoyerError) {
        guard concurrency > 0 else { throw .invalidInput("--concurrency must be more than zero") }
        guard concurrency <= 10_000 else { throw .invalidInput("--concurrency is at most 10000") }
        if let requests, requests <= 0 { throw .invalidInput("--requests must be more than zero") }
        if let duration, duration <= .zero { throw .invalidInput("--duration must be more than zero") }
        if let rate, !(rate > 0 && rate.isFinite) { throw .invalidInput("--rate must be more than zero") }
        if let connections, connections <= 0 { throw .invalidInput("--connections must be more than zero") }
        guard documents > 0 else { throw .invalidInput("--documents must be more than zero") }
        self.scenario = scenario
        self.duration = duration
        self.requests = requests
        self.concurrency = concurrency
        self.rate = rate
        self.documents = documents
        self.connections = min(connections ?? min(concurrency, 4), concurrency)
        if duration == nil, requests == nil {
            self.duration = Self.defaultDuration
            notes.append(
                "neither --duration nor --requests given: running for \(LoadDuration.text(Self.defaultDuration))"
            )
        }
        if let connections, connections > concurrency {
            notes.append("--connections \(connections) is more than --concurrency: using \(concurrency)")
        }
    }
}
