import FoyerRPC
import HummingbirdCore
import Logging
import NIOCore
import NIOSSL

/// The HTTP listener's child channel: the connection guard (`SourceConnectionGuard`), a PROXY header reader on
/// connections from a trusted proxy (`HTTPProxyHeaderHandler`), then the base channel: HTTP/1.1, or TLS with
/// HTTP/2 or HTTP/1.1 (`HTTP2UpgradeChannel`), so the PROXY header is read before the TLS handshake, which must
/// finish within `tlsHandshakeTimeout` (`TLSHandshakeTimeout`).
struct ProxyProtocolChannel<Base: ServerChildChannel>: ServerChildChannel {
    typealias Value = Base.Value

    let base: Base
    let trustedProxies: TrustedProxies
    let limiter: SourceConnectionLimiter
    let clients: ProxiedClients
    /// When the base channel speaks TLS (its set-up adds a `NIOSSLServerHandler`): how long the handshake may take.
    var tlsHandshakeTimeout: TimeAmount?

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        channel.eventLoop.makeCompletedFuture {
            try channel.pipeline.syncOperations.addHandler(SourceConnectionGuard(limiter: limiter))
            if trustedProxies.contains(channel.remoteAddress) {
                try channel.pipeline.syncOperations.addHandler(
                    HTTPProxyHeaderHandler(limiter: limiter, clients: clients)
                )
            }
        }.flatMap {
            base.setup(channel: channel, logger: logger)
        }.flatMapThrowing { value in
            if let tlsHandshakeTimeout {
                let pipeline = channel.pipeline.syncOperations
                try pipeline.addHandler(
                    TLSHandshakeTimeout(timeout: tlsHandshakeTimeout),
                    position: .after(try pipeline.handler(type: NIOSSLServerHandler.self))
                )
            }
            return value
        }
    }

    func handle(value: Value, logger: Logger) async {
        await base.handle(value: value, logger: logger)
    }
}
