import FoyerTestSupport
import FoyerWire
import NIOCore
import Testing

@testable import FoyerRPC

/// The server's idle limit counts work (requests, cancels, calls in flight), not PINGs; the client keeps busy
/// connections alive and replaces idle ones the server closed.
@Suite("Idle timeout against a real server")
struct IdleTimeoutTests {
    @Test("a connection that only sends PINGs is closed at the idle timeout", .timeLimit(.minutes(1)))
    func pingOnly() async throws {
        let configuration = ProtocolViolationTests.openServer {
            $0.idleTimeout = .milliseconds(300)
            // Far above what this peer sends, so the PING flood limit cannot be what closes it.
            $0.pingsPerSecondMax = 1_000_000
        }
        try await withRPCServer(configuration) { _, port in
            let peer = try await ProtocolViolationTests.handshaken(port: port)
            // Ping, wait for the PONG, ping again, until the server gives up on the connection.
            var pings: UInt32 = 0
            while true {
                pings += 1
                // The server may close the connection between two PINGs: then the send fails, and its GOAWAY is
                // among the frames still to be read.
                try? await peer.send(Frame.ping(id: pings))
                let frame = try #require(try await peer.nextFrame(), "closed without GOAWAY")
                if frame.type == .pong { continue }
                #expect(frame.type == .goAway)
                #expect(GoAwayReason(rawValue: frame.header.code) == .idleTimeout)
                break
            }
            try await peer.expectClosed()
            #expect(pings > 1)
        }
    }

    @Test("a call that runs past the idle timeout is answered: a call in flight is not idleness")
    func longCall() async throws {
        let probe = SleepProbe()
        var configuration = testServerConfiguration()
        configuration.idleTimeout = .milliseconds(300)
        try await withRPCServer(configuration, router: probe.router()) { _, port in
            try await withTestClient(port: port, adjust: { $0.maxAttempts = 1 }) { client async throws in
                _ = try await client.call(TestMethods.sleep, SleepRequest(milliseconds: 1200))
                #expect(probe.completed == 1)
            }
        }
    }

    @Test("an idle connection the server closed is replaced for the next call", .timeLimit(.minutes(1)))
    func reopenedAfterServerIdleClose() async throws {
        let probe = SleepProbe()
        let log = CapturedLog()
        var configuration = testServerConfiguration()
        configuration.idleTimeout = .milliseconds(300)
        try await withRPCServer(configuration, router: probe.router(), logger: log.logger()) { _, port in
            let adjust: (inout RPCClientConfiguration) -> Void = {
                // The client checks its own idle rule every quarter of the keepalive interval: slowly here, so the
                // server's idle timeout is what closes the connection.
                $0.keepaliveInterval = .seconds(60)
                $0.keepaliveTimeout = .seconds(60)
                // One attempt, a call that is not idempotent: a call lost on a dead connection would fail.
                $0.maxAttempts = 1
            }
            try await withTestClient(port: port, adjust: adjust) { client async throws in
                _ = try await client.call(TestMethods.sleep, SleepRequest(milliseconds: 0))
                let first = try #require(client.pool.connections.first)
                // The server closes it (GOAWAY idle-timeout)
                try await first.closeFuture.get()
                let closes = log.records("closing connection").map { $0.metadata["goaway.reason"] }
                #expect(closes == ["idle-timeout"])
                // The next call gets a new connection.
                _ = try await client.call(TestMethods.sleep, SleepRequest(milliseconds: 0))
                #expect(probe.completed == 2)
                let connections = client.pool.connections
                #expect(connections.count == 1 && connections.first !== first)
            }
        }
    }
}
