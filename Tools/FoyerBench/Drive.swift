import FoyerBenchKit
import FoyerClient
import FoyerRPC
import NIOCore
import Synchronization

/// Runs `count` operations, `concurrency` at once, and times them; failures are counted by name, not thrown.
enum Drive {
    struct Outcome: Sendable {
        var latencies = LatencyRecorder()
        var failures: [String: Int] = [:]
        var seconds: Double = 0
    }

    static func run(
        count: Int,
        concurrency: Int,
        _ operation: @escaping @Sendable (Int) async throws -> Void
    ) async throws -> Outcome {
        let next = Ticket()
        let clock = ContinuousClock()
        let start = clock.now
        var total = try await withThrowingTaskGroup(of: Outcome.self) { group in
            for _ in 0..<max(1, min(concurrency, count)) {
                group.addTask {
                    var outcome = Outcome()
                    while true {
                        let index = next.take()
                        guard index < count else { break }
                        let begin = NIODeadline.now()
                        do {
                            try await operation(index)
                            outcome.latencies.record(since: begin)
                        } catch {
                            outcome.failures[Self.name(of: error), default: 0] += 1
                        }
                    }
                    return outcome
                }
            }
            var total = Outcome()
            for try await part in group {
                total.latencies.merge(part.latencies)
                total.failures.merge(part.failures, uniquingKeysWith: +)
            }
            return total
        }
        total.seconds = (clock.now - start).seconds
        return total
    }

    /// Hands out 0, 1, 2, ... to the workers.
    private final class Ticket: Sendable {
        private let next = Atomic<Int>(0)
        func take() -> Int { next.add(1, ordering: .relaxed).oldValue }
    }

    static func name(of error: any Error) -> String {
        if let error = error as? FoyerError { return error.name }
        if let error = error as? RPCError { return FoyerError(error).name }
        return "\(type(of: error))"
    }
}

struct BenchFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
