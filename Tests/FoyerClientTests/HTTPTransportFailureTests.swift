import Foundation
import FoyerClient
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import Testing

/// The HTTP transport against a scripted server that misbehaves the way networks and broken proxies do: the call
/// timeout holds whatever the server does, and a lost answer is retried with the same idempotency key.
@Suite("FoyerClient over HTTP when the server misbehaves")
struct HTTPTransportFailureTests {
    @Test("An answer trickling in a byte at a time ends at the call timeout, not when the server is done")
    func tricklingAnswerHitsTheCallTimeout() async throws {
        try await ScriptedHTTPServer.with(script: { _, _ in .trickle }) { server in
            var configuration = try FoyerClientConfiguration(address: server.baseURL)
            configuration.callTimeout = .seconds(1)
            configuration.maxAttempts = 1
            try await withFoyerClient(configuration: configuration) { client in
                // The declared answer takes 100 s at this pace; URLSession's per-read timeout never fires.
                await expectError(.deadlineExceeded) { try await client.signInAsGuest() }
            }
            #expect(server.requests.count == 1)
        }
    }

    @Test("A guest sign-in whose answer is lost is sent again with the same Idempotency-Key, and the retry answers")
    func lostAnswerIsRetriedWithTheSameKey() async throws {
        let script: ScriptedHTTPServer.Script = { index, _ in index == 0 ? .closeWithoutAnswer : .session }
        try await ScriptedHTTPServer.with(script: script) { server in
            var configuration = try FoyerClientConfiguration(address: server.baseURL)
            configuration.maxAttempts = 3
            try await withFoyerClient(configuration: configuration) { client in
                let session = try await client.signInAsGuest(idempotencyKey: "guest-key-1")
                #expect(session.uid == "u-scripted")
            }
            let keys = server.requests.map { $0.headers["idempotency-key"] }
            #expect(keys == ["guest-key-1", "guest-key-1"])
        }
    }

    @Test("A lost answer is not retried past maxAttempts: the caller learns the outcome is unknown")
    func lostAnswersExhaustTheAttempts() async throws {
        try await ScriptedHTTPServer.with(script: { _, _ in .closeWithoutAnswer }) { server in
            var configuration = try FoyerClientConfiguration(address: server.baseURL)
            configuration.maxAttempts = 2
            try await withFoyerClient(configuration: configuration) { client in
                await expectError(.connectionLost) { try await client.signInAsGuest() }
            }
            #expect(server.requests.count == 2)
        }
    }
}

/// A loopback HTTP/1.1 server that answers each request as its script says, and records what it was sent.
final class ScriptedHTTPServer: Sendable {
    enum Behaviour: Sendable {
        /// Close the connection without a byte of answer.
        case closeWithoutAnswer
        /// Declare a 1,000-byte body and send one byte every 100 ms.
        case trickle
        /// A 201 with a guest session.
        case session
    }

    struct Request: Sendable {
        var head: String
        /// Header names lower-cased.
        var headers: [String: String]
    }

    /// The behaviour for the request with this index (from 0, over all connections).
    typealias Script = @Sendable (_ index: Int, _ request: Request) -> Behaviour

    private let recorded = NIOLockedValueBox<[Request]>([])
    private let script: Script
    private(set) nonisolated(unsafe) var port = 0  // set once before the server is shared

    private init(script: @escaping Script) {
        self.script = script
    }

    var requests: [Request] { recorded.withLockedValue { $0 } }
    var baseURL: String { "http://127.0.0.1:\(port)" }

    static func with<T>(script: @escaping Script, _ body: (ScriptedHTTPServer) async throws -> T) async throws -> T {
        let server = ScriptedHTTPServer(script: script)
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(ScriptedHTTPHandler(server: server))
                }
            }
            .bind(host: "127.0.0.1", port: 0)
            .get()
        server.port = channel.localAddress?.port ?? 0
        do {
            let result = try await body(server)
            try await channel.close()
            return result
        } catch {
            try? await channel.close()
            throw error
        }
    }

    /// Records `head` and says how to answer it.
    fileprivate func answer(_ head: String) -> Behaviour {
        var headers: [String: String] = [:]
        for line in head.split(separator: "\r\n").dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            let name = line[..<colon].lowercased()
            headers[name] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        let request = Request(head: head, headers: headers)
        let index = recorded.withLockedValue { requests in
            requests.append(request)
            return requests.count - 1
        }
        return script(index, request)
    }
}

/// Reads one request head per connection (the transport's requests here have no body) and acts out the script.
private final class ScriptedHTTPHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private let server: ScriptedHTTPServer
    private var received = ""
    private var trickle: RepeatedTask?

    init(server: ScriptedHTTPServer) {
        self.server = server
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        received += String(buffer: unwrapInboundIn(data))
        guard let end = received.range(of: "\r\n\r\n") else { return }
        let head = String(received[..<end.lowerBound])
        received = String(received[end.upperBound...])
        switch server.answer(head) {
        case .closeWithoutAnswer:
            context.close(promise: nil)
        case .session:
            let body = """
                {"uid":"u-scripted","isAnonymous":true,"sessionId":"s1","accessToken":"a","refreshToken":"r",\
                "accessTokenExpiresAt":"2030-01-01T00:00:00.000Z","refreshTokenExpiresAt":"2030-02-01T00:00:00.000Z"}
                """
            let answer =
                "HTTP/1.1 201 Created\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n\r\n"
                + body
            context.writeAndFlush(wrapOutboundOut(ByteBuffer(string: answer)), promise: nil)
        case .trickle:
            let head = "HTTP/1.1 201 Created\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n"
            context.writeAndFlush(wrapOutboundOut(ByteBuffer(string: head)), promise: nil)
            let bound = NIOLoopBound(context, eventLoop: context.eventLoop)
            trickle = context.eventLoop.scheduleRepeatedTask(
                initialDelay: .milliseconds(100),
                delay: .milliseconds(100)
            ) { _ in
                bound.value.writeAndFlush(NIOAny(ByteBuffer(string: " ")), promise: nil)
            }
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        trickle?.cancel()
        context.fireChannelInactive()
    }
}
