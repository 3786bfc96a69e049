import FoyerTestSupport
import FoyerWire
import NIOCore
import NIOEmbedded
import Testing

@testable import FoyerRPC

@Suite("Rate-limited warnings about refused peers")
struct WarningRateLimiterTests {
    static let start = NIODeadline.uptimeNanoseconds(1_000_000_000)

    @Test("a budget logs `limit` per interval, counts the rest, and hands the count over once")
    func budget() {
        var budget = WarningBudget(limit: 2, interval: .seconds(60))
        #expect(budget.take(now: Self.start) == .log(suppressedBefore: 0))
        #expect(budget.take(now: Self.start + .seconds(1)) == .log(suppressedBefore: 0))
        #expect(budget.take(now: Self.start + .seconds(2)) == .suppress(first: true))
        #expect(budget.take(now: Self.start + .seconds(3)) == .suppress(first: false))
        // A new window: the first warning brings the count of the last one with it.
        #expect(budget.take(now: Self.start + .seconds(60)) == .log(suppressedBefore: 2))
        #expect(budget.take(now: Self.start + .seconds(61)) == .log(suppressedBefore: 0))
        #expect(budget.take(now: Self.start + .seconds(62)) == .suppress(first: true))
        #expect(budget.takeSuppressed() == 1)
        #expect(budget.takeSuppressed() == 0)
        #expect(budget.take(now: Self.start + .seconds(63)) == .suppress(first: true))
    }

    @Test("after the limit, one summary line with the count when the interval ends")
    func summary() throws {
        let loop = EmbeddedEventLoop()
        let log = CapturedLog()
        let limiter = WarningRateLimiter(
            "handshake refused",
            limit: 3,
            interval: .seconds(60),
            logger: log.logger(),
            eventLoop: loop
        )
        for index in 0..<10 { limiter.warn(metadata: ["attempt": "\(index)"]) }
        #expect(log.records("handshake refused").map { $0.metadata["attempt"] } == ["0", "1", "2"])
        #expect(log.records("warnings suppressed").isEmpty)
        loop.advanceTime(by: .seconds(59))
        #expect(log.records("warnings suppressed").isEmpty)
        loop.advanceTime(by: .seconds(1))
        let summary = try #require(log.records("warnings suppressed").first)
        #expect(summary.level == .warning)
        #expect(summary.metadata["log.suppressed.count"] == "7")
        #expect(summary.metadata["log.suppressed.message"] == "handshake refused")
        // The next interval starts afresh, and nothing is reported twice.
        limiter.warn(metadata: ["attempt": "10"])
        loop.advanceTime(by: .seconds(120))
        #expect(log.records("handshake refused").count == 4)
        #expect(log.records("warnings suppressed").count == 1)
        try loop.syncShutdownGracefully()
    }

    static func flooded(_ adjust: (inout RPCServerConfiguration) -> Void = { _ in }) -> RPCServerConfiguration {
        var configuration = testServerConfiguration()
        configuration.refusalWarningsMax = 3
        configuration.refusalWarningsInterval = .seconds(3600)
        adjust(&configuration)
        return configuration
    }

    @Test("a flood of refused handshakes logs at most the limit", .timeLimit(.minutes(1)))
    func handshakeFlood() async throws {
        let log = CapturedLog()
        try await withRPCServer(Self.flooded(), logger: log.logger()) { _, port in
            // Handshakes without the cluster-secret proof, one after the other
            for _ in 0..<8 {
                let peer = try await RawPeer.connect(port: port)
                try await peer.sendPrefaceAndHello(HandshakeTesting.plainHello())
                try await ProtocolViolationTests.expectGoAway(peer, .authenticationFailed)
            }
        }
        let warnings = log.records("handshake refused")
        #expect(warnings.count == 3)
        #expect(warnings.first?.metadata["reason"] == "a cluster-secret proof is required")
    }

    @Test("a flood of connections over the per-source cap logs at most the limit", .timeLimit(.minutes(1)))
    func connectionFlood() async throws {
        let log = CapturedLog()
        try await withRPCServer(Self.flooded { $0.maxConnectionsPerSource = 1 }, logger: log.logger()) { _, port in
            // Given one connection held from 127.0.0.1
            let held = try await RawPeer.connect(port: port)
            try await held.sendPrefaceAndHello(HandshakeTesting.signedHello(secret: testClusterSecret, service: "test"))
            #expect(try await held.nextFrame()?.type == .helloAck)
            // When eight more come from there
            for _ in 0..<8 {
                let peer = try await RawPeer.connect(port: port)
                try await ProtocolViolationTests.expectGoAway(peer, .tooManyConnections)
            }
            await held.close()
        }
        let warnings = log.records("connection refused")
        #expect(warnings.count == 3)
        #expect(warnings.first?.metadata["reason"] == "too many connections from 127.0.0.1/32")
    }
}
