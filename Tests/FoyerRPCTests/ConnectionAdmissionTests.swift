import NIOCore
import NIOEmbedded
import Testing

@testable import FoyerRPC

@Suite("Connection admission: total and per-source caps")
struct ConnectionAdmissionTests {
    static func source(_ text: String) throws -> IPNetwork {
        try #require(IPNetwork.connectionSource(of: try SocketAddress(ipAddress: text, port: 1)))
    }

    @Test("a source is an IPv4 address, or an IPv6 /64; IPv4-mapped IPv6 counts as IPv4")
    func sourceKeys() throws {
        #expect(try Self.source("192.0.2.7").description == "192.0.2.7/32")
        #expect(try Self.source("192.0.2.7") != Self.source("192.0.2.8"))
        #expect(try Self.source("::ffff:192.0.2.7") == Self.source("192.0.2.7"))
        // Any address in one /64 is the same source; the next /64 is another.
        #expect(try Self.source("2001:db8:1:2::1").description == "2001:db8:1:2::/64")
        #expect(try Self.source("2001:db8:1:2:ffff:ffff:ffff:ffff") == Self.source("2001:db8:1:2::1"))
        #expect(try Self.source("2001:db8:1:3::1") != Self.source("2001:db8:1:2::1"))
        #expect(IPNetwork.connectionSource(of: nil) == nil)
        #expect(IPNetwork.connectionSource(of: try SocketAddress(unixDomainSocketPath: "/tmp/foyer.sock")) == nil)
    }

    @Test("each source is capped; another source is still admitted; a release frees the place")
    func perSource() throws {
        var admission = ConnectionAdmission(maxConnections: 10, maxConnectionsPerSource: 2)
        let a = try Self.source("192.0.2.1")
        let b = try Self.source("2001:db8::1")
        let first = try admission.admit(source: a).get().ticket
        _ = try admission.admit(source: a).get().ticket
        #expect(admission.admit(source: a) == .failure(.sourceFull(a)))
        _ = try admission.admit(source: b).get().ticket
        // Connections with no known source count only in the total.
        _ = try admission.admit(source: nil).get().ticket
        #expect(admission.count == 4 && admission.perSource == [a: 2, b: 1])
        admission.release(first)
        admission.release(first)
        #expect(admission.count == 3 && admission.perSource[a] == 1)
        _ = try admission.admit(source: a).get().ticket
    }

    @Test("the total cap applies whatever the source")
    func total() throws {
        var admission = ConnectionAdmission(maxConnections: 2, maxConnectionsPerSource: 2)
        let first = try admission.admit(source: nil).get().ticket
        _ = try admission.admit(source: Self.source("192.0.2.1")).get().ticket
        #expect(admission.admit(source: try Self.source("192.0.2.2")) == .failure(.serverFull))
        admission.release(first)
        _ = try admission.admit(source: Self.source("192.0.2.2")).get().ticket
        #expect(admission.perSource.values.reduce(0, +) == 2)
    }

    @Test("a proxied connection moves to its client's source, unless that one is full")
    func move() throws {
        var admission = ConnectionAdmission(maxConnections: 10, maxConnectionsPerSource: 1)
        let client = try Self.source("203.0.113.9")
        let viaProxy = try admission.admit(source: nil).get().ticket
        let second = try admission.admit(source: nil).get().ticket
        let moved = admission.move(viaProxy, to: client)
        let movedToFull = admission.move(second, to: client)
        #expect(moved && !movedToFull)
        #expect(admission.perSource == [client: 1])
        admission.release(second)
        admission.release(viaProxy)
        let movedAfterRelease = admission.move(viaProxy, to: client)
        #expect(admission.count == 0 && admission.perSource.isEmpty && !movedAfterRelease)
    }

    @Test("the /64s of one IPv6 /48 share a cap of their own; IPv4 sources have none; a release frees it")
    func perNetwork() throws {
        var admission = ConnectionAdmission(
            maxConnections: 100,
            maxConnectionsPerSource: 2,
            maxConnectionsPerNetwork: 3
        )
        let a = try Self.source("2001:db8:5:1::1")
        let b = try Self.source("2001:db8:5:2::1")
        let c = try Self.source("2001:db8:5:3::1")
        let first = try admission.admit(source: a).get().ticket
        _ = try admission.admit(source: a).get().ticket
        _ = try admission.admit(source: b).get().ticket
        // c's own /64 is empty, but the /48 holds 3.
        let network = try #require(IPNetwork("2001:db8:5::/48"))
        #expect(admission.admit(source: c) == .failure(.sourceFull(network)))
        #expect(admission.perNetwork == [network: 3])
        // Another /48, and IPv4 sources, are not held back.
        _ = try admission.admit(source: Self.source("2001:db8:6:1::1")).get().ticket
        for _ in 0..<2 { _ = try admission.admit(source: Self.source("192.0.2.1")).get() }
        // A proxied connection cannot move into the full /48 either.
        let viaProxy = try admission.admit(source: nil).get().ticket
        let movedIntoFull = admission.move(viaProxy, to: c)
        admission.release(first)
        let movedAfterRelease = admission.move(viaProxy, to: c)
        #expect(!movedIntoFull && movedAfterRelease)
        #expect(admission.perNetwork[network] == 3)
    }

    @Test("a full server makes room for a lighter source by closing the heaviest source's oldest connection")
    func eviction() throws {
        var admission = ConnectionAdmission(maxConnections: 4, maxConnectionsPerSource: 4)
        let heavy = try Self.source("192.0.2.1")
        let other = try Self.source("192.0.2.2")
        let oldest = try admission.admit(source: heavy).get()
        #expect(oldest.evicted == nil)
        for _ in 0..<3 { _ = try admission.admit(source: heavy).get() }
        // The newcomer holds none, the heaviest 4: the heaviest's oldest goes.
        let newcomer = try admission.admit(source: other).get()
        #expect(newcomer.evicted == oldest.ticket)
        #expect(admission.count == 4 && admission.perSource == [heavy: 3, other: 1])
        // Releasing the evicted connection when it closes changes nothing.
        admission.release(oldest.ticket)
        #expect(admission.count == 4)
        // 3 against 1: still two more, so one more goes; at 2 against 2 the server refuses instead of trading.
        #expect(try admission.admit(source: other).get().evicted != nil)
        #expect(admission.perSource == [heavy: 2, other: 2])
        #expect(admission.admit(source: other) == .failure(.serverFull))
        #expect(admission.admit(source: try Self.source("192.0.2.3")) != .failure(.serverFull))
        // A connection whose source is not known yet (behind a proxy) never displaces one.
        #expect(admission.admit(source: nil) == .failure(.serverFull))
    }

    @Test("the table closes the connection a newcomer displaced; releasing it afterwards changes nothing")
    func tableClosesTheEvicted() async throws {
        let table = ConnectionTable(admission: ConnectionAdmission(maxConnections: 2, maxConnectionsPerSource: 2))
        let heavy = try Self.source("192.0.2.1")
        let first = EmbeddedChannel()
        let second = EmbeddedChannel()
        let newcomer = EmbeddedChannel()
        for channel in [first, second, newcomer] {
            try await channel.connect(to: SocketAddress(ipAddress: "192.0.2.9", port: 1))
        }
        #expect(table.admit(first, source: heavy) == nil)
        #expect(table.admit(second, source: heavy) == nil)
        #expect(table.admit(newcomer, source: try Self.source("192.0.2.2")) == nil)
        #expect(!first.isActive && second.isActive && newcomer.isActive)
        table.release(first)
        #expect(table.count == 2)
        table.release(second)
        table.release(second)
        #expect(table.count == 1)
        _ = try? newcomer.finish()
        _ = try? second.finish()
    }
}
