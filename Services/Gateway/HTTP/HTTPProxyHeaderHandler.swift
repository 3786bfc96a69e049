import FoyerRPC
import NIOCore

/// The first handler on a connection from a trusted proxy: reads an optional PROXY protocol header (v1 or v2) in
/// front of the HTTP bytes, counts the connection against the client it names (`SourceConnectionLimiter`) and
/// records that client for the connection's requests (`ProxiedClients`). Bytes that do not start like a header
/// pass on untouched (a proxy that sends none, with `Forwarded` instead). A malformed header, or a client at its
/// connection limit, closes the connection unanswered.
final class HTTPProxyHeaderHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    private enum State {
        /// Before the header or the first HTTP byte; holds what arrived of a header so far.
        case reading(ByteBuffer?)
        /// The header (if any) is read: everything passes on.
        case passing
        /// Refused: what else arrives is dropped until the close.
        case closing
    }

    private let limiter: SourceConnectionLimiter
    private let clients: ProxiedClients
    private var state = State.reading(nil)
    /// The connection whose client is recorded in `clients`, forgotten when it closes. (Its place in the limiter is
    /// given back by `SourceConnectionGuard`.)
    private var connection: ObjectIdentifier?

    init(limiter: SourceConnectionLimiter, clients: ProxiedClients) {
        self.limiter = limiter
        self.clients = clients
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard case .reading(let pending) = state else {
            if case .passing = state { context.fireChannelRead(data) }
            return
        }
        var bytes = unwrapInboundIn(data)
        if var pending {
            pending.writeBuffer(&bytes)
            bytes = pending
        }
        do {
            if ProxyHeader.mayStart(bytes.readableBytesView) {
                guard let header = try ProxyHeader.parse(&bytes) else {
                    state = .reading(bytes)
                    return
                }
                if case .client(let address) = header {
                    guard limiter.admitBehindProxy(context.channel, client: address) else { return refuse(context) }
                    connection = ObjectIdentifier(context.channel)
                    clients.set(address, for: ObjectIdentifier(context.channel))
                }
            }
            state = .passing
            if bytes.readableBytes > 0 { context.fireChannelRead(wrapInboundOut(bytes)) }
        } catch {
            refuse(context)
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        release()
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) { release() }

    private func refuse(_ context: ChannelHandlerContext) {
        state = .closing
        context.close(promise: nil)
    }

    private func release() {
        if let connection { clients.remove(connection) }
        connection = nil
    }
}
