import FoyerRPC
import FoyerTestSupport
import FoyerWire
import NIOCore
import Testing

@Suite("RPC calls over loopback")
struct RPCCallTests {
    @Test("echo through the pool, with compression negotiated on and off", arguments: [true, false])
    func echoThroughPool(compression: Bool) async throws {
        var configuration = testServerConfiguration()
        configuration.compressionEnabled = compression
        try await withRPCServer(configuration) { _, port in
            try await withTestClient(port: port) { client async throws in
                let small = ByteBuffer(string: "ping")
                let large = ByteBuffer(string: String(repeating: "guest data ", count: 20_000))
                let random = ByteBuffer(bytes: (0..<100_000).map { _ in UInt8.random(in: 0...255) })
                for body in [small, large, random, ByteBuffer()] {
                    let answer = try await client.call(BuiltinMethods.echo, RawBody(body))
                    #expect(answer.bytes == body)
                }
            }
        }
    }

    @Test("a client that does not offer compression is answered uncompressed")
    func clientWithoutCompression() async throws {
        try await withRPCServer(testServerConfiguration()) { _, port in
            try await withTestClient(port: port, adjust: { $0.compressionEnabled = false }) { client async throws in
                let large = ByteBuffer(string: String(repeating: "x", count: 50_000))
                #expect(try await client.call(BuiltinMethods.echo, RawBody(large)).bytes == large)
            }
        }
    }

    @Test("health answers the service name and state")
    func health() async throws {
        try await withRPCServer(testServerConfiguration(service: "identity")) { _, port in
            try await withTestClient(port: port, service: "identity") { client async throws in
                let health = try await client.call(BuiltinMethods.health, Empty())
                #expect(health.service == "identity")
                #expect(health.state == .serving)
            }
        }
    }

    @Test("many calls in flight on few connections are all answered, matched by id")
    func manyConcurrentCalls() async throws {
        try await withRPCServer(testServerConfiguration()) { _, port in
            try await withTestClient(
                port: port,
                adjust: {
                    $0.maxInFlightPerConnection = 8; $0.connectionsMax = 2
                }
            ) { client async throws in
                try await withThrowingTaskGroup(of: Void.self) { group in
                    for index in 0..<2_000 {
                        group.addTask {
                            let body = ByteBuffer(string: "call \(index)")
                            let answer = try await client.call(BuiltinMethods.echo, RawBody(body))
                            #expect(answer.bytes == body)
                        }
                    }
                    try await group.waitForAll()
                }
            }
        }
    }

    @Test("an unknown method is answered unimplemented")
    func unknownMethod() async throws {
        try await withRPCServer(testServerConfiguration()) { _, port in
            try await withTestClient(port: port) { client async throws in
                let error = await #expect(throws: RPCError.self) {
                    try await client.call(TestMethods.sleep, SleepRequest(milliseconds: 0))
                }
                #expect(error?.status == .unimplemented)
            }
        }
    }

    @Test("a handler's RPCError reaches the client with status, message and retry-after")
    func handlerStatus() async throws {
        let probe = SleepProbe()
        try await withRPCServer(testServerConfiguration(), router: probe.router()) { _, port in
            try await withTestClient(port: port) { client async throws in
                let error = await #expect(throws: RPCError.self) {
                    try await client.call(TestMethods.fail, FailRequest(status: .notFound))
                }
                #expect(error?.status == .notFound)
                #expect(error?.message == "failing as asked")
                #expect(error?.retryAfterMilliseconds == 5)
            }
        }
    }

    @Test("any other error becomes internal with a generic message; the detail stays on the server")
    func unexpectedErrorIsInternal() async throws {
        let probe = SleepProbe()
        try await withRPCServer(testServerConfiguration(), router: probe.router()) { _, port in
            try await withTestClient(port: port) { client async throws in
                let error = await #expect(throws: RPCError.self) { try await client.call(TestMethods.crash, Empty()) }
                #expect(error?.status == .internal)
                #expect(error?.message.contains("hunter2") == false)
            }
        }
    }

    @Test("a body with a count larger than it holds is answered invalid-argument; the connection stays usable")
    func badCountInBody() async throws {
        let probe = SleepProbe()
        try await withRPCServer(testServerConfiguration(), router: probe.router()) { _, port in
            try await withTestClient(port: port) { client async throws in
                var lying = ByteBuffer()
                lying.writeVarint(900)
                lying.writeVarint(1)
                let lie = RPCMethod<RawBody, RawBody>(id: TestMethods.sum.id, name: "sum", idempotent: true)
                let error = await #expect(throws: RPCError.self) { try await client.call(lie, RawBody(lying)) }
                #expect(error?.status == .invalidArgument)
                #expect(try await client.call(TestMethods.sum, SumRequest(values: [1, 2, 3])).total == 6)
            }
        }
    }

    @Test("trailing bytes after a request body are answered invalid-argument")
    func trailingBytesInBody() async throws {
        let probe = SleepProbe()
        try await withRPCServer(testServerConfiguration(), router: probe.router()) { _, port in
            try await withTestClient(port: port) { client async throws in
                var body = SumRequest(values: [1]).encoded()
                body.writeInteger(UInt8(0))
                let raw = RPCMethod<RawBody, RawBody>(id: TestMethods.sum.id, name: "sum", idempotent: true)
                let error = await #expect(throws: RPCError.self) { try await client.call(raw, RawBody(body)) }
                #expect(error?.status == .invalidArgument)
            }
        }
    }
}
