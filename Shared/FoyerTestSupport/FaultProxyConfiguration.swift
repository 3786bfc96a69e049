import Foundation
public import NIOCore

/// What a ``FaultProxy`` injects, and how often: each rate is the chance, per frame, of that fault.
///
/// Request frames (gateway to service) may be delayed, duplicated and reordered; answer frames (service to gateway)
/// may be dropped. Everything else (the preface, `HELLO`, `HELLO_ACK`, `CANCEL`, `PING`, `PONG`, `GOAWAY`) passes
/// untouched.
public struct FaultProxyConfiguration: Sendable {
    /// The variable that sets ``seed`` when a failing run is to be repeated.
    public static let seedVariable = "FOYER_FAULT_PROXY_SEED"

    /// The chance that a request is held for a random time up to ``delayMax`` before it goes on. Default 0.2.
    public var delayRate = 0.2
    /// The longest delay. Default 30 ms.
    public var delayMax: TimeAmount = .milliseconds(30)
    /// The chance that a request is sent a second time, under an id of the proxy's, whose answer the proxy swallows:
    /// the service runs the call twice, the caller sees one answer. Default 0.1.
    public var duplicateRate = 0.1
    /// The chance that a request is held back and sent after the next request on its connection (or after
    /// ``reorderHoldMax`` if none comes). Default 0.1.
    public var reorderRate = 0.1
    /// How long a held-back request waits for a next one before it goes alone. Default 50 ms.
    public var reorderHoldMax: TimeAmount = .milliseconds(50)
    /// The chance that an answer (`RESPONSE` or `ERROR`) never reaches the caller. Default 0.05.
    public var dropAnswerRate = 0.05
    /// The largest frame `len` relayed; a larger one closes the connection pair. Default 16 MiB, well above the
    /// services' default `frameLengthMax` (1 MiB).
    public var frameLengthMax = 16 << 20
    /// The most connections relayed at once; more are closed at once. Default 256.
    public var connectionsMax = 256
    /// The random generator's seed.
    public var seed: UInt64

    /// - Parameter seed: the seed; by default ``seedVariable`` from the environment, or a random one.
    public init(seed: UInt64? = nil) {
        self.seed = seed ?? FaultProxyConfiguration.seedFromEnvironment()
    }

    /// ``seedVariable`` from the environment if it holds a number, else a random seed.
    public static func seedFromEnvironment() -> UInt64 {
        ProcessInfo.processInfo.environment[seedVariable].flatMap { UInt64($0) } ?? UInt64.random(in: 0...UInt64.max)
    }
}

/// What a ``FaultProxy`` has done so far.
public struct FaultProxyCounts: Sendable, Equatable, CustomStringConvertible {
    /// Request frames relayed (each counted once, duplicates not included).
    public var requests = 0
    /// Requests held for a while before they went on.
    public var delayed = 0
    /// Requests sent twice.
    public var duplicated = 0
    /// Requests sent after the request that followed them.
    public var reordered = 0
    /// Answers to the caller's calls that were dropped.
    public var droppedAnswers = 0
    /// Answers to the proxy's own duplicates, swallowed.
    public var swallowedDuplicateAnswers = 0
    /// Connections accepted.
    public var connections = 0

    public init() {}

    public var description: String {
        "requests \(requests), delayed \(delayed), duplicated \(duplicated), reordered \(reordered), "
            + "dropped answers \(droppedAnswers), swallowed duplicate answers \(swallowedDuplicateAnswers), "
            + "connections \(connections)"
    }

    /// The sum of two proxies' counts.
    public static func + (lhs: FaultProxyCounts, rhs: FaultProxyCounts) -> FaultProxyCounts {
        var sum = lhs
        sum.requests += rhs.requests
        sum.delayed += rhs.delayed
        sum.duplicated += rhs.duplicated
        sum.reordered += rhs.reordered
        sum.droppedAnswers += rhs.droppedAnswers
        sum.swallowedDuplicateAnswers += rhs.swallowedDuplicateAnswers
        sum.connections += rhs.connections
        return sum
    }
}
