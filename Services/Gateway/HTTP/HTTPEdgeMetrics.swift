import CoreMetrics
import Synchronization

/// What the HTTP edge records about the requests it answers, through swift-metrics (the process's `MetricsSystem`,
/// which the executable bootstraps with `--metrics-port`; a no-op otherwise). Calls over HTTP run the gateway's
/// handlers directly, not through the binary listener, so they are not in `foyer_rpc_server_calls_total`:
///
/// | metric | type | labels |
/// |---|---|---|
/// | `foyer_http_requests_total` | counter | `route`, `method`, `status` |
/// | `foyer_http_request_duration_seconds` | histogram (the RPC durations' buckets) | `route`, `method` |
///
/// Labels are bounded: `route` is the path template of the operation (`/v1/documents/{collection}/{key}`, never the
/// concrete path), a fixed path (`/healthz`), or `other` for a path the edge does not serve; `method` is one of the
/// standard HTTP methods or `other`; `status` is the HTTP status code. Each label set's handle is made on its first
/// request and kept, at most ``handlesMax`` of them (past that, handles are made per request; it cannot be reached
/// with bounded labels).
final class HTTPEdgeMetrics: Sendable {
    /// The `route` of a path the edge does not serve.
    static let otherRoute = "other"
    /// Most handles kept.
    static let handlesMax = 4096
    private static let methods: Set<String> = ["GET", "HEAD", "POST", "PUT", "DELETE", "PATCH", "OPTIONS"]

    private struct RequestKey: Hashable, Sendable {
        let route: String
        let method: String
        let status: Int
    }

    private struct RouteKey: Hashable, Sendable {
        let route: String
        let method: String
    }

    private let factory: any MetricsFactory
    private let counters = Mutex<[RequestKey: Counter]>([:])
    private let timers = Mutex<[RouteKey: Timer]>([:])

    /// Records through `factory` (default: the process's `MetricsSystem`, as it is when the listener is set up).
    init(factory: any MetricsFactory = MetricsSystem.factory) {
        self.factory = factory
    }

    /// One request answered: `route` as ``otherRoute`` or a template, `method` as the client sent it, the HTTP
    /// status of the answer and the time taken to make it.
    func answered(route: String, method: String, status: Int, duration: Duration) {
        let method = Self.methods.contains(method) ? method : Self.otherRoute
        let request = RequestKey(route: route, method: method, status: status)
        handle(request, in: counters) {
            Counter(
                label: "foyer_http_requests_total",
                dimensions: [("route", route), ("method", method), ("status", String(status))],
                factory: factory
            )
        }.increment()
        handle(RouteKey(route: route, method: method), in: timers) {
            Timer(
                label: "foyer_http_request_duration_seconds",
                dimensions: [("route", route), ("method", method)],
                factory: factory
            )
        }.recordNanoseconds(Self.nanoseconds(duration))
    }

    /// The handle kept for `key`, made by `make` the first time (outside the lock: the factory has locks of its own).
    private func handle<Key: Hashable & Sendable, Handle: Sendable>(
        _ key: Key,
        in handles: borrowing Mutex<[Key: Handle]>,
        make: () -> Handle
    ) -> Handle {
        if let handle = handles.withLock({ $0[key] }) { return handle }
        let made = make()
        return handles.withLock { handles in
            if let existing = handles[key] { return existing }
            if handles.count < Self.handlesMax { handles[key] = made }
            return made
        }
    }

    private static func nanoseconds(_ duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        let (whole, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        return overflow ? .max : whole &+ attoseconds / 1_000_000_000
    }
}
