import FoyerSoakKit
import FoyerStackProcesses
import Synchronization

/// Samples every service's RSS and open files once a second; a minute's figures are taken from the samples since
/// the last take.
final class SoakSampler: Sendable {
    /// How often a sample is taken.
    static let interval: Duration = .seconds(1)

    private let stack: StackProcesses
    private let samples = Mutex<[String: [ProcessFigures]]>([:])

    init(stack: StackProcesses) { self.stack = stack }

    /// Samples until cancelled.
    func run() async {
        while !Task.isCancelled {
            sample()
            do { try await Task.sleep(for: Self.interval) } catch { return }
        }
    }

    /// Takes one more sample, then each running service's figures over the samples since the last take (a service
    /// not running now has none), and starts again.
    func take() -> [String: ProcessFigures] {
        sample()
        let taken = samples.withLock { samples in
            defer { samples = [:] }
            return samples
        }
        var figures: [String: ProcessFigures] = [:]
        for service in StackService.allCases where stack.isRunning(service) {
            figures[service.rawValue] = taken[service.rawValue].flatMap { ProcessFigures(samples: $0) }
        }
        return figures
    }

    private func sample() {
        for service in StackService.allCases {
            guard let pid = stack.processID(of: service), let figures = ProcessFigures.read(pid: pid) else { continue }
            samples.withLock { $0[service.rawValue, default: []].append(figures) }
        }
    }
}
