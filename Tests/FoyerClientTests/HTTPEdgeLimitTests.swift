import FoyerGateway
import FoyerJSON
import FoyerRPC
import NIOCore
import NIOEmbedded
import Testing

@testable import FoyerGatewayHTTP

@Suite("The HTTP edge's limits and client addresses")
struct HTTPEdgeLimitTests {
    /// A stack whose gateway allows one sign-in per source and minute.
    private static let oneSignIn: StackOptions = {
        var options = StackOptions()
        options.sourceLimits.signIn = RateLimit(perMinute: 1, burst: 1)
        return options
    }()

    private static let wrongPassword: JSONValue = [
        "credential": ["type": "password", "email": "nobody@example.com", "password": "not the password at all"]
    ]

    @Test("X-Forwarded-For from a trusted proxy names the source the per-source limits count: 429 with Retry-After")
    func trustedProxyNamesTheSource() async throws {
        try await withHTTPEdge(options: Self.oneSignIn) {
            $0.trustedProxies = try! TrustedProxies(parsing: "127.0.0.1")
        } _: { edge in
            let first = try await edge.send(
                "POST",
                "/v1/sessions",
                headers: ["X-Forwarded-For": "203.0.113.1"],
                json: Self.wrongPassword
            )
            #expect(first.status == 401)
            let limited = try await edge.send(
                "POST",
                "/v1/sessions",
                headers: ["X-Forwarded-For": "203.0.113.1"],
                json: Self.wrongPassword
            )
            #expect(limited.status == 429)
            #expect(limited["code"]?.string == "rate-limited")
            #expect(Int(limited.header("Retry-After") ?? "") ?? 0 >= 1)
            #expect(limited["retryAfterMs"]?.int ?? 0 > 0)
            let other = try await edge.send(
                "POST",
                "/v1/sessions",
                headers: ["Forwarded": "for=\"[2001:db8::7]:4711\""],
                json: Self.wrongPassword
            )
            #expect(other.status == 401)
        }
    }

    @Test("The same headers from a peer that is not a trusted proxy are ignored")
    func untrustedHeadersAreIgnored() async throws {
        try await withHTTPEdge(options: Self.oneSignIn) { edge in
            let first = try await edge.send(
                "POST",
                "/v1/sessions",
                headers: ["X-Forwarded-For": "203.0.113.1"],
                json: Self.wrongPassword
            )
            #expect(first.status == 401)
            let second = try await edge.send(
                "POST",
                "/v1/sessions",
                headers: ["X-Forwarded-For": "203.0.113.2"],
                json: Self.wrongPassword
            )
            #expect(second.status == 429)
        }
    }

    @Test(
        "Connections are capped per source and in all; a trusted proxy counts only in all until its header names the client"
    )
    func connectionCaps() async throws {
        let limiter = SourceConnectionLimiter(
            connectionsMax: 3,
            connectionsPerSourceMax: 1,
            trustedProxies: try TrustedProxies(parsing: "10.0.0.0/8")
        )
        func channel(_ address: String) async throws -> EmbeddedChannel {
            let channel = EmbeddedChannel()
            try await channel.connect(to: SocketAddress(ipAddress: address, port: 1))
            channel.remoteAddress = try SocketAddress(ipAddress: address, port: 1)
            return channel
        }
        let first = try await channel("192.0.2.1")
        #expect(limiter.admit(first))
        #expect(!limiter.admit(try await channel("192.0.2.1")))
        let viaProxy = try await channel("10.0.0.1")
        #expect(limiter.admit(viaProxy))
        #expect(limiter.admit(try await channel("10.0.0.1")))
        // Full: a newcomer from another source may not displace anyone, since no source holds two more than it.
        #expect(!limiter.admit(try await channel("192.0.2.9")))
        // The proxied client 192.0.2.1 is at its cap; another client is counted.
        #expect(!limiter.admitBehindProxy(viaProxy, client: try SocketAddress(ipAddress: "192.0.2.1", port: 9)))
        #expect(limiter.admitBehindProxy(viaProxy, client: try SocketAddress(ipAddress: "192.0.2.5", port: 9)))
        limiter.release(first)
        #expect(limiter.admit(try await channel("192.0.2.1")))
    }

    @Test("Forwarded and X-Forwarded-For are read only from trusted proxies")
    func clientAddresses() throws {
        let proxy = try SocketAddress(ipAddress: "10.0.0.1", port: 1)
        let trusted = try TrustedProxies(parsing: "10.0.0.0/8")
        let forwarded = ClientAddress.resolve(
            peer: proxy,
            forwarded: "for=192.0.2.60;proto=https, for=\"[2001:db8::1]:4711\"",
            xForwardedFor: "198.51.100.1",
            trustedProxies: trusted
        )
        #expect(forwarded?.ipAddress == "2001:db8::1")
        let xff = ClientAddress.resolve(
            peer: proxy,
            forwarded: nil,
            xForwardedFor: "198.51.100.1, 198.51.100.2",
            trustedProxies: trusted
        )
        #expect(xff?.ipAddress == "198.51.100.2")
        let untrusted = ClientAddress.resolve(
            peer: try SocketAddress(ipAddress: "192.0.2.5", port: 1),
            forwarded: "for=192.0.2.60",
            xForwardedFor: "198.51.100.1",
            trustedProxies: trusted
        )
        #expect(untrusted?.ipAddress == "192.0.2.5")
    }
}

@Suite("The HTTP edge against impolite clients")
struct HTTPEdgeRawClientTests {
    @Test("A second connection from a source at its cap is closed unanswered; other sources are served")
    func perSourceConnectionCap() async throws {
        try await withHTTPEdge {
            $0.connectionsPerSourceMax = 1
        } _: { edge in
            let port = try #require(Int(edge.baseURL.split(separator: ":").last ?? ""))
            let held = try await RawHTTPConnection.connect(port: port, from: "127.0.0.2")
            try await held.send("GET /healthz HTTP/1.1\r\nHost: gateway\r\n\r\n")
            #expect(await held.read(until: "serving").hasPrefix("HTTP/1.1 200"))

            let refused = try await RawHTTPConnection.connect(port: port, from: "127.0.0.2")
            try? await refused.send("GET /healthz HTTP/1.1\r\nHost: gateway\r\n\r\n")
            #expect(try await refused.readUntilClosed() == "")

            #expect(try await edge.send("GET", "/healthz").status == 200)
            await held.close()
        }
    }

    @Test("A connection that sends no request within the first-request timeout is closed, long before the idle one")
    func silentConnectionClosed() async throws {
        try await withHTTPEdge {
            $0.firstRequestTimeoutSeconds = 1
            $0.idleTimeoutSeconds = 60
        } _: { edge in
            let port = try #require(Int(edge.baseURL.split(separator: ":").last ?? ""))
            let started = ContinuousClock.now
            let silent = try await RawHTTPConnection.connect(port: port, from: "127.0.0.4")
            #expect(try await silent.readUntilClosed() == "")
            #expect(ContinuousClock.now - started < .seconds(30))
            // A connection that asks at once is served.
            #expect(try await edge.send("GET", "/healthz").status == 200)
        }
    }

    @Test("A body that does not arrive within the request timeout is answered 408")
    func slowBody() async throws {
        try await withHTTPEdge {
            $0.requestTimeout = .milliseconds(200)
        } _: { edge in
            let port = try #require(Int(edge.baseURL.split(separator: ":").last ?? ""))
            let slow = try await RawHTTPConnection.connect(port: port, from: "127.0.0.3")
            try await slow.send(
                "POST /v1/sessions HTTP/1.1\r\nHost: gateway\r\nContent-Type: application/json\r\n"
                    + "Content-Length: 100\r\nConnection: close\r\n\r\n{\"credential\":"
            )
            let answer = try await slow.readUntilClosed()
            #expect(answer.hasPrefix("HTTP/1.1 408"))
            #expect(answer.contains("\"code\":\"request-timeout\""))
        }
    }
}
