import Hummingbird
import Tracing

/// The HTTP edge's spans, through the process's tracer (the executable bootstraps one with `--otlp-endpoint`; a
/// no-op otherwise, and then nothing is done at all): one server span per request, a root, or with
/// `continuesTraceparent` the child of the W3C trace context in the request's `traceparent` header if it has a valid
/// one (an app backend's trace goes on here). Off by default: a caller's context would choose the trace id and,
/// through its sampled flag, which requests a parent-based sampler records. Its context is the `ServiceContext` of the handler's task, so the gateway's calls to the services are
/// its children.
///
/// The span is named `<method> <route>` (`PUT /v1/documents/{collection}/{key}`), the route as the metrics name it
/// (``HTTPEdgeMetrics``): the operation's path template, a fixed path, or `other`, never the concrete path. Its
/// attributes are `http.request.method` (`other` for a non-standard method), `http.route` and
/// `http.response.status_code`; never a header, a path parameter, an address or a body. A 5xx answer sets the span's
/// status to error.
struct HTTPEdgeTracing: Sendable {
    /// Methods named as they are; any other is `other` (a client chooses it, so it is no name for a span).
    private static let methods: Set<String> = ["GET", "HEAD", "POST", "PUT", "DELETE", "PATCH", "OPTIONS"]
    private let tracer: (any Tracer)?
    private let continuesTraceparent: Bool

    /// Traces through `tracer` (default: the process's, as it is when the listener is set up).
    init(tracer: any Tracer = InstrumentationSystem.tracer, continuesTraceparent: Bool) {
        self.tracer = tracer is NoOpTracer ? nil : tracer
        self.continuesTraceparent = continuesTraceparent
    }

    /// Runs `body`, which answers the request and names its route, inside the request's server span.
    func withServerSpan(
        method: String,
        headers: HTTPFields,
        _ body: () async -> (Response, route: String)
    ) async -> (Response, route: String) {
        guard let tracer else { return await body() }
        let method = Self.methods.contains(method) ? method : HTTPEdgeMetrics.otherRoute
        var parent = ServiceContext.topLevel
        if continuesTraceparent { tracer.extract(headers, into: &parent, using: HTTPFieldsExtractor()) }
        let span = tracer.startSpan("\(method) \(HTTPEdgeMetrics.otherRoute)", context: parent, ofKind: .server)
        let (response, route) = await ServiceContext.withValue(span.context) { await body() }
        span.operationName = "\(method) \(route)"
        span.attributes["http.request.method"] = method
        span.attributes["http.route"] = route
        span.attributes["http.response.status_code"] = response.status.code
        if response.status.code >= 500 { span.setStatus(SpanStatus(code: .error)) }
        span.end()
        return (response, route)
    }
}

/// Reads a header (`traceparent`, `tracestate`) for the tracer.
private struct HTTPFieldsExtractor: Extractor {
    func extract(key: String, from carrier: HTTPFields) -> String? {
        let name = key.lowercased()
        return carrier.first { $0.name.canonicalName == name }?.value
    }
}
