import NIOCore
import NIOPosix
import Synchronization

/// A raw TCP connection to the HTTP listener, for what a polite client never does: send a body slowly, hold a
/// connection open. It reads the answer as bytes.
final class RawHTTPConnection: Sendable {
    private let channel: any Channel
    private let received: Received

    private init(channel: any Channel, received: Received) {
        self.channel = channel
        self.received = received
    }

    /// Connects to 127.0.0.1:`port` from the local address `source` (another loopback address appears as
    /// another client).
    static func connect(port: Int, from source: String) async throws -> RawHTTPConnection {
        let received = Received()
        let channel =
            try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .bind(to: try SocketAddress(ipAddress: source, port: 0))
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(Collector(received: received))
                }
            }
            .connect(host: "127.0.0.1", port: port)
            .get()
        return RawHTTPConnection(channel: channel, received: received)
    }

    func send(_ text: String) async throws {
        try await channel.writeAndFlush(ByteBuffer(string: text))
    }

    /// Sends bytes that need not be text (a PROXY protocol v2 header).
    func send(bytes: [UInt8]) async throws {
        try await channel.writeAndFlush(ByteBuffer(bytes: bytes))
    }

    /// Everything the server sent until it closed the connection.
    func readUntilClosed() async throws -> String {
        try await channel.closeFuture.get()
        return received.text
    }

    /// What the server sent until `marker` arrived (the connection stays open).
    func read(until marker: String) async -> String {
        await received.wait(for: marker)
    }

    func close() async {
        try? await channel.close()
    }

    private final class Received: Sendable {
        private struct State {
            var text = ""
            var waiters: [(String, CheckedContinuation<String, Never>)] = []
        }

        private let state = Mutex(State())

        var text: String { state.withLock { $0.text } }

        func append(_ more: String) {
            let ready = state.withLock { state in
                state.text += more
                let text = state.text
                let ready = state.waiters.filter { text.contains($0.0) }
                state.waiters.removeAll { text.contains($0.0) }
                return ready.map { ($0.1, text) }
            }
            for (waiter, text) in ready { waiter.resume(returning: text) }
        }

        func wait(for marker: String) async -> String {
            await withCheckedContinuation { continuation in
                let text = state.withLock { state -> String? in
                    if state.text.contains(marker) { return state.text }
                    state.waiters.append((marker, continuation))
                    return nil
                }
                if let text { continuation.resume(returning: text) }
            }
        }
    }

    private final class Collector: ChannelInboundHandler, Sendable {
        typealias InboundIn = ByteBuffer
        let received: Received

        init(received: Received) { self.received = received }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            received.append(String(buffer: unwrapInboundIn(data)))
        }
    }
}
