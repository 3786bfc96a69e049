public import CoreMetrics
public import FoyerWire

/// What the RPC runtime records about the calls it serves and makes, through swift-metrics.
///
/// Labels are bounded: the service's name, the method's name from the operation table without the service prefix
/// (``methodLabel(_:)``; `unknown` for an id the router does not serve), and the status's name (`ok` for an answer,
/// ``statusLabel(_:)``, through ``statusName``, which the services set to Foyer's table of every status).
/// Never a uid, an address or a message.
///
/// | metric | type | labels |
/// |---|---|---|
/// | `foyer_rpc_server_calls_total` | counter | `service`, `method`, `status` |
/// | `foyer_rpc_server_call_duration_seconds` | histogram | `service`, `method` |
/// | `foyer_rpc_server_connections` | gauge | `service` |
/// | `foyer_rpc_client_calls_total` | counter | `upstream`, `method`, `status` |
/// | `foyer_rpc_client_call_duration_seconds` | histogram | `upstream`, `method` |
///
/// The factory is injected (``RPCServerConfiguration/metrics``, ``RPCClientConfiguration/metrics``), so a test
/// records into its own and the process's `MetricsSystem` is bootstrapped once, by the executable.
public struct RPCMetrics: Sendable {
    /// Where the metrics go.
    public let factory: any MetricsFactory

    /// Names a status for the `status` label. The runtime knows only its own names; a service's statuses
    /// (`quota-exceeded`) are in FoyerAPI's `FoyerStatusNames`, which every executable passes here.
    public let statusName: @Sendable (RPCStatus) -> String

    /// Records through `factory`, naming statuses with `statusName` (default: the runtime's names, and a service's
    /// own status by its number, `status-0x3203`).
    public init(
        factory: any MetricsFactory,
        statusName: @escaping @Sendable (RPCStatus) -> String = { $0.description }
    ) {
        self.factory = factory
        self.statusName = statusName
    }

    /// Records through the process's `MetricsSystem` (a no-op until the executable bootstraps it).
    public static var process: RPCMetrics { RPCMetrics(factory: MetricsSystem.factory) }

    /// The label value of a method: its name in the operation table without the service's prefix
    /// (`identity.createGuest` is `createGuest`; `health` stays `health`).
    public static func methodLabel(_ name: String) -> String {
        name.firstIndex(of: ".").map { String(name[name.index(after: $0)...]) } ?? name
    }

    /// The label value of a call's outcome: `ok`, or the status's name (`not-found`, `quota-exceeded`).
    public func statusLabel(_ status: RPCStatus?) -> String {
        status.map(statusName) ?? "ok"
    }

    /// One call answered by a server of `service`.
    func served(service: String, method: String, status: RPCStatus?, duration: Duration) {
        Counter(
            label: "foyer_rpc_server_calls_total",
            dimensions: [
                ("service", service), ("method", Self.methodLabel(method)), ("status", statusLabel(status)),
            ],
            factory: factory
        ).increment()
        Timer(
            label: "foyer_rpc_server_call_duration_seconds",
            dimensions: [("service", service), ("method", Self.methodLabel(method))],
            factory: factory
        ).recordNanoseconds(duration.nanoseconds)
    }

    /// One call made to `upstream`, answered or failed.
    func called(upstream: String, method: String, status: RPCStatus?, duration: Duration) {
        Counter(
            label: "foyer_rpc_client_calls_total",
            dimensions: [
                ("upstream", upstream), ("method", Self.methodLabel(method)), ("status", statusLabel(status)),
            ],
            factory: factory
        ).increment()
        Timer(
            label: "foyer_rpc_client_call_duration_seconds",
            dimensions: [("upstream", upstream), ("method", Self.methodLabel(method))],
            factory: factory
        ).recordNanoseconds(duration.nanoseconds)
    }

    /// The open connections of a server of `service`, up one on accept and down one on close.
    func connections(service: String) -> Meter {
        Meter(label: "foyer_rpc_server_connections", dimensions: [("service", service)], factory: factory)
    }
}

extension Duration {
    /// The duration in whole nanoseconds, clamped to `Int64`.
    var nanoseconds: Int64 {
        let (seconds, attoseconds) = components
        let (whole, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        return overflow ? (seconds < 0 ? .min : .max) : whole &+ attoseconds / 1_000_000_000
    }
}
