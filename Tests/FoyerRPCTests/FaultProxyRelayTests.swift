import FoyerRPC
import FoyerTestSupport
import FoyerWire
import NIOCore
import Testing

/// The test proxy of FoyerTestSupport between a real client and server: the faults it injects stay within what the
/// protocol allows, so a client sees each call answered once, or not at all when the answer is dropped.
@Suite("The fault-injecting proxy between an RPC client and server")
struct FaultProxyRelayTests {
    @Test("every request duplicated, some delayed and reordered: each call is answered once, with its own answer")
    func duplicatedDelayedReordered() async throws {
        var configuration = FaultProxyConfiguration(seed: 7)
        configuration.duplicateRate = 1
        configuration.delayRate = 0.5
        configuration.reorderRate = 0.5
        configuration.dropAnswerRate = 0
        let proxy = try await FaultProxy.start(configuration: configuration)
        try await withRPCServer(testServerConfiguration()) { _, port in
            proxy.setUpstream(port: port)
            try await withTestClient(port: proxy.port, adjust: { $0.maxAttempts = 1 }) { client async throws in
                try await withThrowingTaskGroup(of: Void.self) { group in
                    for index in 0..<200 {
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
        try await proxy.shutdown()
        let counts = proxy.counts
        #expect(counts.requests >= 200)
        #expect(counts.duplicated == counts.requests, "\(counts)")
        #expect(counts.delayed > 0 && counts.reordered > 0, "\(counts)")
        #expect(counts.droppedAnswers == 0)
    }

    @Test("a dropped answer leaves the call to its deadline; switched off, the proxy relays the next call")
    func droppedAnswerThenPassThrough() async throws {
        var configuration = FaultProxyConfiguration(seed: 11)
        configuration.delayRate = 0
        configuration.duplicateRate = 0
        configuration.reorderRate = 0
        configuration.dropAnswerRate = 1
        let proxy = try await FaultProxy.start(configuration: configuration)
        try await withRPCServer(testServerConfiguration()) { _, port in
            proxy.setUpstream(port: port)
            try await withTestClient(port: proxy.port, adjust: { $0.maxAttempts = 1 }) { client async throws in
                let error = await #expect(throws: RPCError.self) {
                    try await client.call(
                        BuiltinMethods.echo,
                        RawBody(ByteBuffer(string: "lost")),
                        options: CallOptions(timeout: .milliseconds(300))
                    )
                }
                #expect(error?.status == .deadlineExceeded)
                proxy.setFaultsEnabled(false)
                let body = ByteBuffer(string: "relayed")
                #expect(try await client.call(BuiltinMethods.echo, RawBody(body)).bytes == body)
            }
        }
        try await proxy.shutdown()
        #expect(proxy.counts.droppedAnswers == 1)
    }
}
