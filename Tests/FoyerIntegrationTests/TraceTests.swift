import Foundation
import FoyerClient
import FoyerStackProcesses
import FoyerTestSupport
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Traces from the real executables (`FOYER_OTLP_ENDPOINT`), sent over OTLP/HTTP to a small collector in Python
/// (Tests/http/otlp_receiver.py, which decodes them with `opentelemetry-proto`): a request is one trace across the
/// gateway and the services it calls, an app backend's `traceparent` continues into the stack when the gateway is
/// started with `FOYER_CONTINUE_CLIENT_TRACES` (and is ignored otherwise), and no span carries a
/// uid or an email.
@Suite("Traces of the real executables (SQLite)")
struct TraceTests {
    private static let repository = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    @Test(
        "a sign-in is one trace from the gateway through identity and guest-quota; traceparent continues only when the gateway is told to; no PII",
        arguments: [true, false]
    )
    func requestsAreTraces(continuesClientTraces: Bool) async throws {
        let collector = OTLPCollector(script: Self.repository.appendingPathComponent("Tests/http/otlp_receiver.py"))
        let endpoint = "http://127.0.0.1:\(try await collector.start())"
        var options = RunningStackOptions(gatewayHTTP: true)
        for service in StackService.allCases { options.environment[service] = ["FOYER_OTLP_ENDPOINT": endpoint] }
        if continuesClientTraces { options.environment[.gateway]?["FOYER_CONTINUE_CLIENT_TRACES"] = "1" }
        let email = uniqueEmail("traces")
        let traceID = W3CIDs.hex(byteCount: 16)
        let parentID = W3CIDs.hex(byteCount: 8)

        // Given a stack exporting to the collector, a guest signing in, writing and linking an email through the
        // binary client, and a guest made over HTTP by a backend that sends its trace context
        let uids = try await withRunningStack(options) { stack async throws in
            let guest = try await stack.withClient { client async throws in
                let session = try await client.signInAsGuest()
                try await client.put("notes", "n1", "a note")
                _ = try await client.link(email: email, password: password)
                return session.uid
            }
            let httpGuest = try await Self.signUpOverHTTP(stack, traceparent: "00-\(traceID)-\(parentID)-01")
            return [guest, httpGuest]
        }
        // When the stack has stopped gracefully (every exporter flushed on its way out)
        let spans = try await collector.spans()

        // Then the binary sign-in is one trace: the gateway's server span, below it (through client spans)
        // identity's and guest-quota's server spans
        let signIn = try #require(spans.first { $0.name == "gateway.guestSignIn" && $0.kind == OTLPSpan.server })
        #expect(signIn.service == "gateway" && signIn.parentSpanId.isEmpty)
        let trace = spans.filter { $0.traceId == signIn.traceId }
        for (service, method) in [("identity", "identity.createGuest"), ("guest-quota", "guest-quota.admitSignup")] {
            let server = try #require(
                trace.first { $0.service == service && $0.name == method && $0.kind == OTLPSpan.server },
                "\(method) in \(trace.map { "\($0.service) \($0.name)" })"
            )
            let chain = OTLPSpan.ancestors(of: server, in: trace)
            #expect(chain.map(\.kind) == [OTLPSpan.client, OTLPSpan.server], "\(method)")
            #expect(chain.first?.service == "gateway" && chain.first?.name == method)
            #expect(chain.last?.spanId == signIn.spanId)
            #expect(server.attributes["rpc.foyer.status"] == "ok")
        }

        // ...the HTTP call continues the backend's trace if the gateway trusts its callers' contexts, and is a trace
        // of its own otherwise
        let http = try #require(
            spans.first { $0.name == "POST /v1/guests" && $0.kind == OTLPSpan.server && $0.service == "gateway" }
        )
        #expect(http.attributes["http.route"] == "/v1/guests" && http.attributes["http.response.status_code"] == "201")
        if continuesClientTraces {
            #expect(http.traceId == traceID && http.parentSpanId == parentID)
            let continued = spans.filter { $0.traceId == traceID }
            #expect(continued.contains { $0.service == "identity" && $0.kind == OTLPSpan.server })
        } else {
            #expect(http.traceId != traceID && http.parentSpanId.isEmpty)
            #expect(!spans.contains { $0.traceId == traceID })
        }

        // ...and nothing names the users
        let secrets = uids + [email]
        for span in spans {
            let texts = [span.name] + Array(span.attributes.values) + span.events
            for text in texts {
                #expect(!secrets.contains { text.lowercased().contains($0.lowercased()) }, "\(span.name): \(text)")
            }
        }
        #expect(Set(spans.map(\.service)).isSuperset(of: ["gateway", "identity", "guest-quota", "user-data"]))
    }

    /// `POST /v1/guests` with `traceparent`; the new guest's uid.
    private static func signUpOverHTTP(_ stack: RunningStack, traceparent: String) async throws -> String {
        var request = URLRequest(url: try #require(URL(string: "\(stack.httpBaseURL)/v1/guests")))
        request.httpMethod = "POST"
        request.setValue(traceparent, forHTTPHeaderField: "traceparent")
        request.setValue(W3CIDs.hex(byteCount: 24), forHTTPHeaderField: "Idempotency-Key")
        let (body, response) = try await URLSession.shared.data(for: request)
        #expect((response as? HTTPURLResponse)?.statusCode == 201)
        let session = try JSONSerialization.jsonObject(with: body) as? [String: Any]
        return try #require(session?["uid"] as? String)
    }
}

/// Random lower-case hex, for W3C ids.
private enum W3CIDs {
    static func hex(byteCount: Int) -> String {
        (0..<byteCount).map { _ in String(format: "%02x", UInt8.random(in: 1...255)) }.joined()
    }
}

/// One span as otlp_receiver.py reports it.
private struct OTLPSpan: Decodable, Sendable {
    static let server = 2
    static let client = 3

    var traceId: String
    var spanId: String
    var parentSpanId: String
    var name: String
    var kind: Int
    var service: String
    var attributes: [String: String]
    var statusCode: Int
    var events: [String]

    /// The spans above `span`, nearest first, as far as `spans` hold them.
    static func ancestors(of span: OTLPSpan, in spans: [OTLPSpan]) -> [OTLPSpan] {
        var chain: [OTLPSpan] = []
        var current = span
        while !current.parentSpanId.isEmpty, chain.count < 64,
            let parent = spans.first(where: { $0.spanId == current.parentSpanId })
        {
            chain.append(parent)
            current = parent
        }
        return chain
    }
}

/// The collector: otlp_receiver.py as a coprocess (it ends with the test process, when its stdin closes).
private struct OTLPCollector: Sendable {
    let python: PythonCoprocess

    init(script: URL) {
        python = PythonCoprocess(
            script,
            arguments: [],
            missingPackages: [3: "run `make deps` to install Python's opentelemetry-proto"]
        )
    }

    /// Starts listening; the port.
    func start() async throws -> Int {
        struct Started: Decodable { var port: Int }
        return try JSONDecoder().decode(Started.self, from: try await python.request(Data(#"{"op":"start"}"#.utf8)))
            .port
    }

    /// Every span received so far.
    func spans() async throws -> [OTLPSpan] {
        struct Received: Decodable { var spans: [OTLPSpan] }
        return try JSONDecoder().decode(Received.self, from: try await python.request(Data(#"{"op":"spans"}"#.utf8)))
            .spans
    }
}
