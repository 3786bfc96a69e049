import FoyerGateway
import FoyerRPC
import NIOCore
import Testing

@testable import FoyerGatewayHTTP

/// PROXY protocol headers (v1 and v2) on the HTTP listener, from a raw TCP client on loopback playing a layer-4
/// load balancer.
@Suite("The HTTP edge behind a load balancer that sends PROXY headers")
struct HTTPEdgeProxyProtocolTests {
    /// A stack whose gateway allows one sign-in per source and minute.
    private static let oneSignIn: StackOptions = {
        var options = StackOptions()
        options.sourceLimits.signIn = RateLimit(perMinute: 1, burst: 1)
        return options
    }()

    private static let loopbackIsTrusted: @Sendable (inout GatewayHTTPConfiguration) -> Void = {
        $0.trustedProxies = try! TrustedProxies(parsing: "127.0.0.1")
    }

    static let v2Signature: [UInt8] = [0x0D, 0x0A, 0x0D, 0x0A, 0x00, 0x0D, 0x0A, 0x51, 0x55, 0x49, 0x54, 0x0A]

    /// A v1 header naming `client` (IPv4) as the source.
    static func v1(_ client: String) -> [UInt8] {
        Array("PROXY TCP4 \(client) 127.0.0.1 4711 7480\r\n".utf8)
    }

    /// A v2 header (PROXY command, TCP over IPv4) naming `client` as the source.
    static func v2(_ client: [UInt8]) -> [UInt8] {
        v2Signature + [0x21, 0x11, 0x00, 0x0C] + client + [127, 0, 0, 1] + [0x12, 0x67, 0x1D, 0x38]
    }

    /// A sign-in with a wrong password (401, and it counts against the source's sign-in limit); the connection
    /// closes after the answer.
    static func signIn(extraHeaders: String = "") -> String {
        let body = #"{"credential":{"type":"password","email":"nobody@example.com","password":"not the password"}}"#
        return "POST /v1/sessions HTTP/1.1\r\nHost: gateway\r\nContent-Type: application/json\r\n"
            + "Content-Length: \(body.utf8.count)\r\nConnection: close\r\n\(extraHeaders)\r\n\(body)"
    }

    static let health = "GET /healthz HTTP/1.1\r\nHost: gateway\r\n\r\n"

    /// Opens a connection from 127.0.0.1, sends `header` and then `request`, and reads the answer until the close.
    static func exchange(port: Int, header: [UInt8], request: String) async throws -> String {
        let connection = try await RawHTTPConnection.connect(port: port, from: "127.0.0.1")
        try? await connection.send(bytes: header + Array(request.utf8))
        return try await connection.readUntilClosed()
    }

    @Test("A v1 or v2 header from a trusted proxy names the source the rate limits count; its Forwarded is not read")
    func headerNamesTheRateLimitedSource() async throws {
        try await withHTTPEdge(options: Self.oneSignIn, adjust: Self.loopbackIsTrusted) { edge in
            let port = try #require(Int(edge.baseURL.split(separator: ":").last ?? ""))
            // The header's client is not a trusted proxy, so the X-Forwarded-For after it is not believed.
            let first = try await Self.exchange(
                port: port,
                header: Self.v1("203.0.113.1"),
                request: Self.signIn(extraHeaders: "X-Forwarded-For: 198.51.100.9\r\n")
            )
            #expect(first.hasPrefix("HTTP/1.1 401"))
            let second = try await Self.exchange(port: port, header: Self.v2([203, 0, 113, 1]), request: Self.signIn())
            #expect(second.hasPrefix("HTTP/1.1 429"))
            #expect(second.contains("\"code\":\"rate-limited\""))
            let other = try await Self.exchange(port: port, header: Self.v1("203.0.113.2"), request: Self.signIn())
            #expect(other.hasPrefix("HTTP/1.1 401"))
        }
    }

    @Test("The header's client is held to the per-source connection cap; the proxy itself only to the total")
    func headerNamesTheConnectionCappedSource() async throws {
        try await withHTTPEdge {
            $0.trustedProxies = try! TrustedProxies(parsing: "127.0.0.1")
            $0.connectionsPerSourceMax = 1
        } _: { edge in
            let port = try #require(Int(edge.baseURL.split(separator: ":").last ?? ""))
            let held = try await RawHTTPConnection.connect(port: port, from: "127.0.0.1")
            try await held.send(bytes: Self.v1("203.0.113.7") + Array(Self.health.utf8))
            #expect(await held.read(until: "serving").hasPrefix("HTTP/1.1 200"))

            let refused = try await Self.exchange(port: port, header: Self.v2([203, 0, 113, 7]), request: Self.health)
            #expect(refused == "")

            let other = try await RawHTTPConnection.connect(port: port, from: "127.0.0.1")
            try await other.send(bytes: Self.v2([203, 0, 113, 8]) + Array(Self.health.utf8))
            #expect(await other.read(until: "serving").hasPrefix("HTTP/1.1 200"))
            // The proxy's own connections without a header: the proxy is the client, counted in the total only.
            #expect(try await edge.send("GET", "/healthz").status == 200)
            await other.close()
            await held.close()
        }
    }

    @Test("From a peer that is not a trusted proxy, a PROXY header is a bad request", arguments: [false, true])
    func untrustedPeerHeaderIsRefused(version2: Bool) async throws {
        try await withHTTPEdge { edge in
            let port = try #require(Int(edge.baseURL.split(separator: ":").last ?? ""))
            let header = version2 ? Self.v2([203, 0, 113, 1]) : Self.v1("203.0.113.1")
            let answer = try await Self.exchange(port: port, header: header, request: Self.health)
            #expect(answer.hasPrefix("HTTP/1.1 400"))
            #expect(!answer.contains("serving"))
        }
    }

    @Test(
        "A malformed PROXY header from a trusted proxy closes the connection unanswered",
        arguments: [
            Array("PROXY TCP4 203.0.113.x 127.0.0.1 4711 7480\r\n".utf8),
            Array("PROXY SCTP 203.0.113.1 127.0.0.1 4711 7480\r\n".utf8),
            v2Signature + [0x31, 0x11, 0x00, 0x0C] + [UInt8](repeating: 1, count: 12),
        ]
    )
    func malformedHeaderCloses(header: [UInt8]) async throws {
        try await withHTTPEdge(adjust: Self.loopbackIsTrusted) { edge in
            let port = try #require(Int(edge.baseURL.split(separator: ":").last ?? ""))
            #expect(try await Self.exchange(port: port, header: header, request: Self.health) == "")
        }
    }

    @Test("A header in pieces is read whole; HTTP bytes that only start like one pass on as HTTP")
    func headerInPieces() async throws {
        try await withHTTPEdge(adjust: Self.loopbackIsTrusted) { edge in
            let port = try #require(Int(edge.baseURL.split(separator: ":").last ?? ""))
            let pieces = try await RawHTTPConnection.connect(port: port, from: "127.0.0.1")
            let header = Self.v2([203, 0, 113, 9])
            try await pieces.send(bytes: Array(header[0..<5]))
            try await pieces.send(bytes: Array(header[5..<15]))
            try await pieces.send(bytes: Array(header[15...]))
            try await pieces.send(Self.health)
            #expect(await pieces.read(until: "serving").hasPrefix("HTTP/1.1 200"))
            await pieces.close()

            let plain = try await RawHTTPConnection.connect(port: port, from: "127.0.0.1")
            try await plain.send("PR")
            try await plain.send("OPFIND /healthz HTTP/1.1\r\nHost: gateway\r\nConnection: close\r\n\r\n")
            #expect(try await plain.readUntilClosed().hasPrefix("HTTP/1.1 405"))
        }
    }
}

@Suite("The HTTP edge's readiness")
struct HTTPEdgeReadinessTests {
    @Test("/readyz asks identity itself: 503 once identity is gone, though the gateway still has its keys cached")
    func readinessFollowsIdentity() async throws {
        try await withHTTPEdge { edge in
            #expect(try await edge.send("GET", "/readyz").status == 200)
            #expect(try await edge.send("GET", "/.well-known/jwks.json").status == 200)

            edge.stack.identityServer.shutDownGracefully()

            let notReady = try await edge.send("GET", "/readyz")
            #expect(notReady.status == 503)
            #expect(notReady.header("Content-Type") == "application/problem+json")
            // The cached key set still answers: it is not what readiness looks at.
            #expect(try await edge.send("GET", "/.well-known/jwks.json").status == 200)
        }
    }
}
