import FoyerRPC
import FoyerTestSupport
import FoyerWire
import Logging
import NIOCore
import ServiceLifecycle
import Testing

@Suite("Graceful shutdown")
struct GracefulShutdownTests {
    @Test("calls in flight when shutdown begins are all answered; the server then stops")
    func drainLosesNothing() async throws {
        let probe = SleepProbe()
        var configuration = testServerConfiguration()
        configuration.host = "127.0.0.1"
        let server = RPCServer(
            configuration: configuration,
            router: probe.router(),
            logger: TestLogging.logger("foyer.test.server")
        )
        let group = ServiceGroup(services: [server], logger: TestLogging.logger("foyer.test.group"))
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            let port = try await server.boundAddress().port!
            try await withTestClient(port: port) { client async throws in
                try await withThrowingTaskGroup(of: Void.self) { calls in
                    for _ in 0..<20 {
                        calls.addTask {
                            _ = try await client.call(TestMethods.sleep, SleepRequest(milliseconds: 500))
                        }
                    }
                    #expect(try await RPCDeadlineAndRetryTests.eventually { probe.started == 20 })
                    await group.triggerGracefulShutdown()
                    try await calls.waitForAll()
                }
                #expect(probe.completed == 20)
                #expect(probe.cancelled == 0)
            }
            try await tasks.waitForAll()
        }
    }

    @Test("after GOAWAY a new request is answered unavailable (not processed), an in-flight one completes")
    func requestAfterGoAway() async throws {
        let probe = SleepProbe()
        var configuration = testServerConfiguration(secret: nil)
        configuration.host = "127.0.0.1"
        let server = RPCServer(
            configuration: configuration,
            router: probe.router(),
            logger: TestLogging.logger("foyer.test.server")
        )
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await server.run() }
            let port = try await server.boundAddress().port!
            let peer = try await ProtocolViolationTests.handshaken(port: port)
            try await peer.send(
                Frame.request(id: 1, method: TestMethods.sleep.id, body: SleepRequest(milliseconds: 300).encoded())
            )
            #expect(try await RPCDeadlineAndRetryTests.eventually { probe.started == 1 })
            server.shutDownGracefully()
            let goAway = try #require(try await peer.nextFrame())
            #expect(goAway.type == .goAway && goAway.header.code == GoAwayReason.shutdown.rawValue)
            #expect(goAway.header.aux > 0)
            try await peer.send(
                Frame.request(id: 2, method: TestMethods.sleep.id, body: SleepRequest(milliseconds: 0).encoded())
            )
            var answers: [UInt32: Frame] = [:]
            while answers.count < 2, let frame = try await peer.nextFrame() { answers[frame.id] = frame }
            #expect(answers[2]?.type == .error)
            #expect(answers[2].map { RPCStatus(rawValue: $0.header.code) } == .unavailable)
            #expect(answers[1]?.type == .response)
            await peer.close()
            try await tasks.waitForAll()
        }
    }
}
