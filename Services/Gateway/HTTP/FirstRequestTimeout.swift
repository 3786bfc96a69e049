import NIOCore

/// Closes a connection that has sent no request bytes within the listener's first-request timeout, then steps aside
/// once the first bytes arrive (after the PROXY header; over HTTPS, decrypted ones, so the TLS handshake counts
/// against the same time). Without it, a peer that opens connections and sends nothing would hold each place for the
/// whole idle timeout.
final class FirstRequestTimeout: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = NIOAny

    private let timeout: TimeAmount
    private var scheduled: Scheduled<Void>?

    init(timeout: TimeAmount) { self.timeout = timeout }

    func handlerAdded(context: ChannelHandlerContext) {
        let channel = context.channel
        scheduled = context.eventLoop.scheduleTask(in: timeout) {
            channel.close(promise: nil)
        }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        scheduled?.cancel()
        scheduled = nil
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        scheduled?.cancel()
        scheduled = nil
        context.fireChannelRead(data)
        context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
    }
}
