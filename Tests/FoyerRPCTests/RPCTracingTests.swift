import FoyerRPC
import FoyerTestSupport
import FoyerWire
import InMemoryTracing
import NIOCore
import Testing
import Tracing

/// Trace context across real clients and servers (protocol 1.1): a call made inside a span reaches the server as the
/// parent of its server span, the handler's own calls are children of that, and nothing travels where the server
/// did not announce it; a 1.0 client still gets the 1.0 handshake.
@Suite("RPC tracing")
struct RPCTracingTests {
    /// Forwards a sum to the `back` service.
    static let relay = RPCMethod<SumRequest, SumResponse>(id: 0x00F6, name: "test.relay", idempotent: true)

    /// A `front` server whose relay calls a `back` server, both and their clients tracing into `tracer`.
    static func withFrontAndBack(
        tracer: W3CTestTracer,
        backTracing: RPCTracing? = nil,
        _ body: @Sendable (_ frontPort: Int) async throws -> Void
    ) async throws {
        var back = testServerConfiguration(service: "back")
        back.tracing = backTracing ?? RPCTracing(tracer: tracer)
        try await withRPCServer(back, router: SleepProbe().router()) { _, backPort in
            let backClient = testClient(port: backPort, service: "back") { $0.tracing = RPCTracing(tracer: tracer) }
            let router = {
                var router = RPCRouter()
                router.register(Self.relay) { request, _ in try await backClient.call(TestMethods.sum, request) }
                return router
            }()
            var front = testServerConfiguration(service: "front")
            front.tracing = RPCTracing(tracer: tracer)
            do {
                try await withRPCServer(front, router: router) { _, frontPort in try await body(frontPort) }
                await backClient.shutdown()
            } catch {
                await backClient.shutdown()
                throw error
            }
        }
    }

    static func span(_ tracer: W3CTestTracer, _ name: String, _ kind: SpanKind) throws -> FinishedInMemorySpan {
        let spans = tracer.finishedSpans.filter { $0.operationName == name && $0.kind == kind }
        try #require(spans.count == 1, "\(name) \(kind): \(tracer.finishedSpans.map(\.operationName))")
        return spans[0]
    }

    @Test("a call inside a span: client span, server span its child across the wire, the handler's call below it")
    func contextCrossesTheWire() async throws {
        let tracer = W3CTestTracer()
        try await Self.withFrontAndBack(tracer: tracer) { port in
            try await withTestClient(port: port, service: "front", adjust: { $0.tracing = RPCTracing(tracer: tracer) })
            {
                client async throws in
                try await tracer.withSpan("test.root") { _ async throws in
                    let answer = try await client.call(Self.relay, SumRequest(values: [2, 3]))
                    #expect(answer.total == 5)
                }
            }
        }
        let root = try Self.span(tracer, "test.root", .internal)
        let relayClient = try Self.span(tracer, "test.relay", .client)
        let relayServer = try Self.span(tracer, "test.relay", .server)
        let sumClient = try Self.span(tracer, "test.sum", .client)
        let sumServer = try Self.span(tracer, "test.sum", .server)
        let chain = [root, relayClient, relayServer, sumClient, sumServer]
        #expect(Set(chain.map(\.traceID)).count == 1, "one trace")
        for (parent, child) in zip(chain, chain.dropFirst()) {
            #expect(child.parentSpanID == parent.spanID, "\(child.operationName) \(child.kind) under \(parent.kind)")
        }
        #expect(relayServer.attributes["rpc.service"]?.toSpanAttribute() == .string("front"))
        #expect(sumClient.attributes["rpc.service"]?.toSpanAttribute() == .string("back"))
        #expect(sumServer.attributes["rpc.method"]?.toSpanAttribute() == .string("sum"))
        #expect(sumServer.attributes["rpc.foyer.status"]?.toSpanAttribute() == .string("ok"))
        #expect(sumServer.status == nil)
    }

    @Test("outcome-unknown statuses mark the spans as errors; a refusal is an answer")
    func statuses() async throws {
        let tracer = W3CTestTracer()
        var configuration = testServerConfiguration(service: "test")
        configuration.tracing = RPCTracing(tracer: tracer)
        try await withRPCServer(configuration, router: SleepProbe().router()) { _, port in
            try await withTestClient(
                port: port,
                adjust: {
                    $0.tracing = RPCTracing(tracer: tracer)
                    $0.maxAttempts = 1
                }
            ) { client async throws in
                try await tracer.withSpan("test.root") { _ async throws in
                    await #expect(throws: RPCError.self) { try await client.call(TestMethods.crash, Empty()) }
                    await #expect(throws: RPCError.self) {
                        try await client.call(TestMethods.fail, FailRequest(status: .notFound))
                    }
                }
            }
        }
        let crash = try Self.span(tracer, "test.crash", .server)
        #expect(crash.status?.code == .error)
        #expect(crash.attributes["rpc.foyer.status"]?.toSpanAttribute() == .string("internal"))
        #expect(try Self.span(tracer, "test.crash", .client).status?.code == .error)
        let refused = try Self.span(tracer, "test.fail", .server)
        #expect(refused.status == nil)
        #expect(refused.attributes["rpc.foyer.status"]?.toSpanAttribute() == .string("not-found"))
    }

    @Test("without a current span a call makes no client span, and the server's span is a root")
    func noCurrentSpan() async throws {
        let tracer = W3CTestTracer()
        try await Self.withFrontAndBack(tracer: tracer) { port in
            try await withTestClient(port: port, service: "front", adjust: { $0.tracing = RPCTracing(tracer: tracer) })
            {
                client async throws in
                #expect(try await client.call(Self.relay, SumRequest(values: [1])).total == 1)
            }
        }
        #expect(tracer.finishedSpans.filter { $0.operationName == "test.relay" }.map(\.kind) == [.server])
        let relayServer = try Self.span(tracer, "test.relay", .server)
        #expect(relayServer.parentSpanID == nil)
        // The handler's call is inside the server span, so it is traced.
        #expect(try Self.span(tracer, "test.sum", .server).traceID == relayServer.traceID)
    }

    @Test("a server that does not trace announces nothing, and a tracing client sends it no context")
    func notNegotiated() async throws {
        let tracer = W3CTestTracer()
        try await Self.withFrontAndBack(tracer: tracer, backTracing: RPCTracing(tracer: NoOpTracer())) { port in
            try await withTestClient(port: port, service: "front", adjust: { $0.tracing = RPCTracing(tracer: tracer) })
            {
                client async throws in
                // A context sent unannounced would be GOAWAY protocol-error: the call would fail.
                try await tracer.withSpan("test.root") { _ async throws in
                    #expect(try await client.call(Self.relay, SumRequest(values: [4])).total == 4)
                }
            }
        }
        #expect(tracer.finishedSpans.filter { $0.operationName == "test.sum" }.map(\.kind) == [.client])
        #expect(try Self.span(tracer, "test.relay", .server).parentSpanID != nil)
    }

    @Test("HELLO_ACK: features for a 1.1 client of a tracing server; the 1.0 form for a 1.0 client or without tracing")
    func handshakeForms() async throws {
        func ack(tracing: Bool, minor: UInt16, continuesCallerContext: Bool = true) async throws -> HelloAck {
            var configuration = testServerConfiguration(secret: nil)
            var rpcTracing = RPCTracing(tracer: tracing ? W3CTestTracer() : NoOpTracer())
            rpcTracing.continuesCallerContext = continuesCallerContext
            configuration.tracing = rpcTracing
            return try await withRPCServer(configuration) { _, port in
                let peer = try await RawPeer.connect(port: port)
                try await peer.sendPrefaceAndHello(
                    HandshakeTesting.plainHello(),
                    preface: Preface(major: 1, minor: minor)
                )
                let frame = try #require(try await peer.nextFrame())
                #expect(frame.type == .helloAck)
                return try HelloAck(decoding: frame.body)
            }
        }
        #expect(try await ack(tracing: true, minor: 1).features == .traceContext)
        #expect(try await ack(tracing: true, minor: 7).features == .traceContext)
        #expect(try await ack(tracing: true, minor: 0).features == nil)
        #expect(try await ack(tracing: false, minor: 1).features == nil)
        // A listener facing apps traces, but does not take its callers' contexts.
        #expect(try await ack(tracing: true, minor: 1, continuesCallerContext: false).features == nil)
    }

    @Test("a trace context the connection did not agree on, or a malformed one, is GOAWAY protocol-error")
    func refusedContexts() async throws {
        let context = TraceContext(traceID: Array(1...16), parentID: Array(1...8), traceFlags: 1)
        var configuration = testServerConfiguration(secret: nil)
        configuration.tracing = RPCTracing(tracer: W3CTestTracer())
        try await withRPCServer(configuration) { _, port in
            // A 1.0 client was announced nothing.
            let old = try await RawPeer.connect(port: port)
            try await old.sendPrefaceAndHello(HandshakeTesting.plainHello(), preface: Preface(major: 1, minor: 0))
            #expect(try await old.nextFrame()?.type == .helloAck)
            try await old.send(
                Frame.request(id: 1, method: 2, body: ByteBuffer()).addingTraceContext(context, allocator: .init())
            )
            #expect(try await old.expectGoAway()?.reason == .protocolError)

            // A 1.1 client was, but its prefix is not version 0.
            let new = try await RawPeer.connect(port: port)
            try await new.sendPrefaceAndHello(HandshakeTesting.plainHello())
            #expect(try await new.nextFrame()?.type == .helloAck)
            var bad = Frame.request(id: 1, method: 2, body: ByteBuffer()).addingTraceContext(
                context,
                allocator: .init()
            )
            bad.body.setInteger(UInt8(1), at: bad.body.readerIndex)
            try await new.send(bad)
            #expect(try await new.expectGoAway()?.reason == .protocolError)

            // A well-formed one is served (the echo answers the body without the prefix).
            let good = try await RawPeer.connect(port: port)
            try await good.sendPrefaceAndHello(HandshakeTesting.plainHello())
            #expect(try await good.nextFrame()?.type == .helloAck)
            try await good.send(
                Frame.request(id: 1, method: 2, body: ByteBuffer(string: "hi"))
                    .addingTraceContext(context, allocator: .init())
            )
            let answer = try #require(try await good.nextFrame())
            #expect(answer.type == .response && answer.body == ByteBuffer(string: "hi"))
        }
    }
}
