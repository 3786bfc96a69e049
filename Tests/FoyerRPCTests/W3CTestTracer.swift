import InMemoryTracing
import Tracing

/// swift-distributed-tracing's `InMemoryTracer` speaking W3C `traceparent` as OpenTelemetry's tracer does, so spans
/// made in a test can cross the RPC runtime's wire: ids are random lower-case hex (32 digits for a trace, 16 for a
/// span), and `inject`/`extract` translate between `traceparent` and the in-memory tracer's own keys.
struct W3CTestTracer: Tracer {
    let spans = InMemoryTracer(
        idGenerator: .init(
            nextTraceID: { W3CTestTracer.hex(byteCount: 16) },
            nextSpanID: { W3CTestTracer.hex(byteCount: 8) }
        )
    )

    var finishedSpans: [FinishedInMemorySpan] { spans.finishedSpans }

    func startSpan<Instant: TracerInstant>(
        _ operationName: String,
        context: @autoclosure () -> ServiceContext,
        ofKind kind: SpanKind,
        at instant: @autoclosure () -> Instant,
        function: String,
        file fileID: String,
        line: UInt
    ) -> InMemorySpan {
        spans.startSpan(
            operationName,
            context: context(),
            ofKind: kind,
            at: instant(),
            function: function,
            file: fileID,
            line: line
        )
    }

    func forceFlush() {}

    func inject<Carrier, Inject: Injector>(
        _ context: ServiceContext,
        into carrier: inout Carrier,
        using injector: Inject
    ) where Carrier == Inject.Carrier {
        guard let span = context.inMemorySpanContext else { return }
        injector.inject("00-\(span.traceID)-\(span.spanID)-01", forKey: "traceparent", into: &carrier)
    }

    func extract<Carrier, Extract: Extractor>(
        _ carrier: Carrier,
        into context: inout ServiceContext,
        using extractor: Extract
    ) where Carrier == Extract.Carrier {
        guard let traceparent = extractor.extract(key: "traceparent", from: carrier) else { return }
        let fields = traceparent.split(separator: "-")
        guard fields.count == 4 else { return }
        context.inMemorySpanContext = InMemorySpanContext(
            traceID: String(fields[1]),
            spanID: String(fields[2]),
            parentSpanID: nil
        )
    }

    static func hex(byteCount: Int) -> String {
        (0..<byteCount).map { _ in
            let byte = UInt8.random(in: 0...255)
            return String(byte >> 4, radix: 16) + String(byte & 0x0F, radix: 16)
        }.joined()
    }
}
