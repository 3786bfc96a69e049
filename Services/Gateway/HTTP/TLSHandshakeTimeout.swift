import NIOCore
import NIOTLS

/// Closes a connection whose TLS handshake has not completed within the listener's idle timeout, then steps aside:
/// until the handshake is done no HTTP handler (and so no idle timeout of theirs) is on the connection, and a peer
/// that opens connections and never says hello would hold its places forever.
final class TLSHandshakeTimeout: ChannelInboundHandler, RemovableChannelHandler {
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

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        // Passed on first: once removed, this context forwards nothing (the ALPN handler waits for this event).
        context.fireUserInboundEventTriggered(event)
        if case .handshakeCompleted = event as? TLSUserEvent {
            scheduled?.cancel()
            scheduled = nil
            context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
        }
    }
}
