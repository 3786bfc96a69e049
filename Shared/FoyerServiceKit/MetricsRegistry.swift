public import CoreMetrics
import Prometheus

/// A process's metrics in Prometheus form: the registry every `Counter`, `Timer`, `Meter` and `Recorder` of the
/// process records into once ``bootstrap()`` has made it the `MetricsSystem`'s factory, and the text `/metrics`
/// serves (``render()``), with the process gauges read at that moment.
///
/// Tests make their own (``init()``) and pass ``factory`` to what they check (`RPCServerConfiguration.metrics`),
/// without bootstrapping: the `MetricsSystem` can be bootstrapped once per process only.
public final class MetricsRegistry: Sendable {
    private let registry = PrometheusCollectorRegistry()
    /// The factory recording into this registry.
    public let factory: any MetricsFactory

    /// Histogram buckets of every duration (seconds): from half a millisecond (an RPC on loopback) to 10 s.
    static let durationBuckets: [Duration] = [
        .microseconds(500), .milliseconds(1), .milliseconds(2), .milliseconds(5), .milliseconds(10),
        .milliseconds(25), .milliseconds(50), .milliseconds(100), .milliseconds(250), .milliseconds(500),
        .seconds(1), .milliseconds(2500), .seconds(5), .seconds(10),
    ]

    /// Histogram buckets of values recorded by name (a `Recorder` with `aggregate: true`): the age of a deleted guest
    /// in seconds, from an hour to 45 days (the promise is "well inside 30 days"); transactions per SQLite commit.
    static let valueBuckets: [String: [Double]] = [
        "foyer_cleanup_deleted_guest_age_seconds": [1, 6, 24, 48, 72, 168, 336, 504, 720, 1080].map { $0 * 3600 },
        // Transactions per SQLite commit: 1 (an idle service) up to the group-commit limit (32 by default).
        "foyer_db_commit_batch_transactions": [1, 2, 4, 8, 16, 32, 64],
    ]

    public init() {
        var factory = PrometheusMetricsFactory(registry: registry)
        factory.defaultDurationHistogramBuckets = Self.durationBuckets
        factory.valueHistogramBuckets = Self.valueBuckets
        self.factory = factory
    }

    /// Makes this registry the process's `MetricsSystem` factory. Once per process (the executable's start-up);
    /// a second call is a programmer error (swift-metrics traps).
    public func bootstrap() {
        MetricsSystem.bootstrap(factory)
    }

    /// The Prometheus text exposition of every metric, after setting the process gauges
    /// (`foyer_process_resident_memory_bytes`, `foyer_process_open_fds`) where the system tells them.
    public func render() -> [UInt8] {
        if let bytes = ProcessMetrics.residentMemoryBytes() {
            registry.makeGauge(name: "foyer_process_resident_memory_bytes", labels: []).set(Double(bytes))
        }
        if let count = ProcessMetrics.openFileDescriptors() {
            registry.makeGauge(name: "foyer_process_open_fds", labels: []).set(Double(count))
        }
        return registry.emitToBuffer()
    }
}
