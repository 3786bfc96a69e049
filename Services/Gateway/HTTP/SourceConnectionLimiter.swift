import FoyerRPC
import NIOCore

/// The HTTP listener's connections, counted and capped as the binary listener's are (``ConnectionTable``: in all, per
/// source, per IPv6 /48, with the heaviest source's oldest connection closed to make room when the listener is
/// full). A trusted proxy's connections count only in all until a PROXY header names their client.
final class SourceConnectionLimiter: Sendable {
    let table: ConnectionTable
    let trustedProxies: TrustedProxies

    init(
        connectionsMax: Int,
        connectionsPerSourceMax: Int,
        connectionsPerNetworkMax: Int = .max,
        trustedProxies: TrustedProxies
    ) {
        table = ConnectionTable(
            admission: ConnectionAdmission(
                maxConnections: connectionsMax,
                maxConnectionsPerSource: connectionsPerSourceMax,
                maxConnectionsPerNetwork: connectionsPerNetworkMax
            )
        )
        self.trustedProxies = trustedProxies
    }

    /// Admits `channel`, counted against its peer unless that is a trusted proxy; false when it is refused.
    func admit(_ channel: any Channel) -> Bool {
        let peer = channel.remoteAddress
        let source = trustedProxies.contains(peer) ? nil : IPNetwork.connectionSource(of: peer)
        return table.admit(channel, source: source) == nil
    }

    /// Counts `channel`, from a trusted proxy, against the client its PROXY header names; false when that source is
    /// at its cap. A client that is itself a trusted proxy, or has no IP address, is not counted.
    func admitBehindProxy(_ channel: any Channel, client: SocketAddress) -> Bool {
        guard !trustedProxies.contains(client), let source = IPNetwork.connectionSource(of: client) else { return true }
        return table.move(channel, to: source)
    }

    /// `channel` has closed: its places are free again (doing it twice does nothing).
    func release(_ channel: any Channel) { table.release(channel) }
}

/// The channel handler that asks the limiter when a connection opens and gives its place back when it closes.
final class SourceConnectionGuard: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = NIOAny

    private let limiter: SourceConnectionLimiter
    private var admitted = false

    init(limiter: SourceConnectionLimiter) { self.limiter = limiter }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { admit(context) }
    }

    func channelActive(context: ChannelHandlerContext) {
        admit(context)
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        limiter.release(context.channel)
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) { limiter.release(context.channel) }

    private func admit(_ context: ChannelHandlerContext) {
        guard !admitted else { return }
        admitted = true
        if !limiter.admit(context.channel) { context.close(promise: nil) }
    }
}
