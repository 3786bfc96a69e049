public import FoyerWire
public import Tracing

/// How the RPC runtime traces calls, through swift-distributed-tracing.
///
/// - A call made while a span is current (`ServiceContext.current` holds one the tracer can propagate) gets a
///   client span named after the method (`identity.createGuest`), and that span's W3C trace context travels in
///   the REQUEST (`FrameFlags.traceContext`) when the connection agreed on it (protocol 1.1).
/// - A server runs every handler inside a server span of the same name, the child of the context the request
///   carried (a root span without one), bound as the handler task's `ServiceContext`: the calls the handler makes
///   downstream are its children in turn.
///
/// Attributes carry no personal data: `rpc.system` (`foyer`), `rpc.service`, `rpc.method` and `rpc.foyer.status`
/// (`ok` or the status's name); never a uid, an address, a token or an error message. A span's status is error for
/// a status of the outcome-unknown class (`internal` among them), unset otherwise: a refusal is an answer.
///
/// With the process's tracer left as swift-distributed-tracing's `NoOpTracer` (nothing bootstrapped: the default),
/// tracing is off: no span is made, nothing is added to the wire, and a server announces no features; nor does a
/// server that does not continue its callers' contexts (``continuesCallerContext``).
public struct RPCTracing: Sendable {
    /// The tracer; `nil` when tracing is off.
    let tracer: (any Tracer)?
    /// Names a status for `rpc.foyer.status`, as ``RPCMetrics/statusName`` does.
    let statusName: @Sendable (RPCStatus) -> String
    /// Whether a server continues the trace contexts its callers send (and announces that it accepts them). Default
    /// true, for listeners whose callers are the cluster's own services. A listener that faces apps sets it false:
    /// an untrusted caller's context would choose the trace id and, through its sampled flag, which requests a
    /// parent-based sampler records. Its calls then start root spans.
    public var continuesCallerContext = true

    /// Traces through `tracer`; a `NoOpTracer` turns tracing off.
    public init(
        tracer: any Tracer,
        statusName: @escaping @Sendable (RPCStatus) -> String = { $0.description }
    ) {
        self.tracer = tracer is NoOpTracer ? nil : tracer
        self.statusName = statusName
    }

    /// The process's tracer (`InstrumentationSystem.tracer`, as bootstrapped when this is read).
    public static var process: RPCTracing { RPCTracing(tracer: InstrumentationSystem.tracer) }

    /// Whether spans are made (the tracer is not a `NoOpTracer`).
    public var isEnabled: Bool { tracer != nil }

    // MARK: Client

    /// Runs `body` inside a client span for `method` of `service` if a span is current, handing it the trace
    /// context to send; `body(nil)` without a current span or with tracing off.
    func withClientSpan<T>(
        method: String,
        service: String,
        _ body: (TraceContext?) async throws -> T
    ) async throws -> T {
        guard let tracer, let parent = ServiceContext.current, Self.traceContext(of: parent, tracer) != nil else {
            return try await body(nil)
        }
        let span = tracer.startSpan(method, context: parent, ofKind: .client)
        describe(span, method: method, service: service)
        do {
            let result = try await body(Self.traceContext(of: span.context, tracer))
            finish(span, status: nil)
            return result
        } catch {
            finish(span, status: (error as? RPCError)?.status ?? .internal)
            throw error
        }
    }

    // MARK: Server

    /// Runs `body` inside a server span for `method` of `service`, the child of `incoming` (a root without it),
    /// with the span's context as the task's `ServiceContext`; `body` answers the frame whose type and code say the
    /// call's status. Just `body()` with tracing off.
    func withServerSpan(
        method: String,
        service: String,
        incoming: TraceContext?,
        _ body: () async -> Frame
    ) async -> Frame {
        guard let tracer else { return await body() }
        var parent = ServiceContext.topLevel
        if let incoming {
            tracer.extract(["traceparent": incoming.traceparent], into: &parent, using: TraceparentCarrier())
        }
        let span = tracer.startSpan(method, context: parent, ofKind: .server)
        describe(span, method: method, service: service)
        let answer = await ServiceContext.withValue(span.context) { await body() }
        finish(span, status: answer.type == .error ? RPCStatus(rawValue: answer.header.code) : nil)
        return answer
    }

    // MARK: Spans

    private func describe(_ span: any Span, method: String, service: String) {
        span.attributes["rpc.system"] = "foyer"
        span.attributes["rpc.service"] = service
        span.attributes["rpc.method"] = RPCMetrics.methodLabel(method)
    }

    /// Records the outcome (`nil`: an answer) and ends the span.
    private func finish(_ span: any Span, status: RPCStatus?) {
        span.attributes["rpc.foyer.status"] = status.map(statusName) ?? "ok"
        if let status, status.retryClass == .outcomeUnknown {
            span.setStatus(SpanStatus(code: .error))
        }
        span.end()
    }

    /// The W3C trace context `tracer` propagates for `context`, if it has a span it can propagate.
    static func traceContext(of context: ServiceContext, _ tracer: any Tracer) -> TraceContext? {
        var carrier: [String: String] = [:]
        tracer.inject(context, into: &carrier, using: TraceparentCarrier())
        return carrier["traceparent"].flatMap(TraceContext.init(traceparent:))
    }
}

/// A dictionary of header values, for the tracer to write and read `traceparent` in (the only key the wire carries:
/// `tracestate` and baggage stay in the process).
struct TraceparentCarrier: Injector, Extractor {
    func inject(_ value: String, forKey key: String, into carrier: inout [String: String]) {
        carrier[key.lowercased()] = value
    }

    func extract(key: String, from carrier: [String: String]) -> String? {
        carrier[key.lowercased()]
    }
}
