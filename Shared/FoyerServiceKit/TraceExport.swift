import Foundation
public import Logging
import OTel
public import ServiceLifecycle
import Tracing

/// Traces exported to an OpenTelemetry collector over OTLP/HTTP (protobuf), with swift-otel: the process's tracer
/// for the RPC runtime and the gateway's HTTP edge (`InstrumentationSystem`), and the service that batches and sends
/// the spans. Only tracing is set up: logging and metrics stay the process's own (`StructuredLogHandler`,
/// Prometheus), and swift-otel's diagnostics go to the service's logger.
///
/// Spans are sampled parent-based: a call whose caller's trace is recorded is recorded, a trace started here (no
/// caller, or one that sent no context) is recorded with probability ``Settings/sampleRatio``. The batch goes out
/// every 5 seconds and on graceful shutdown (run the service first in the process's group, so it stops last and
/// flushes what the others recorded while draining). swift-otel's standard `OTEL_*` variables still apply over these
/// settings.
public enum TraceExport {
    /// What `--otlp-endpoint` and `--trace-sample-ratio` say.
    public struct Settings: Sendable, Equatable {
        /// The collector's base URL; spans go to `<endpoint>/v1/traces`.
        public var endpoint: String
        /// Share of traces started here that are recorded, 0...1.
        public var sampleRatio: Double

        public init(endpoint: String, sampleRatio: Double) {
            self.endpoint = endpoint
            self.sampleRatio = sampleRatio
        }

        /// Where the spans are posted.
        public var tracesURL: String {
            var base = endpoint
            while base.hasSuffix("/") { base.removeLast() }
            return base.hasSuffix("/v1/traces") ? base : base + "/v1/traces"
        }
    }

    /// Makes the tracer for `service` (its `service.name`), bootstraps it as the process's, and returns the exporting
    /// service to run. Call once, before any RPC server or client is made.
    public static func bootstrap(service: String, settings: Settings, logger: Logger) throws -> any Service {
        var configuration = OTel.Configuration.default
        configuration.serviceName = service
        configuration.diagnosticLogger = .custom(logger)
        configuration.diagnosticLogLevel = .warning
        configuration.propagators = [.traceContext]
        configuration.metrics.enabled = false
        configuration.logs.enabled = false
        configuration.traces.exporter = .otlp
        configuration.traces.otlpExporter.endpoint = settings.tracesURL
        guard
            let sampler = OTel.Configuration.TracesConfiguration.SamplerConfiguration.parentBasedTraceIDRatio(
                ratio: settings.sampleRatio
            )
        else { throw ServiceKitError("--trace-sample-ratio must be from 0 to 1") }
        configuration.traces.sampler = sampler
        let backend = try OTel.makeTracingBackend(configuration: configuration)
        InstrumentationSystem.bootstrap(backend.factory)
        return backend.service
    }
}
