import FoyerRPC
import HummingbirdCore
import Logging
import NIOCore

/// The HTTP listener's child channel: the HTTP/1.1 channel, with a PROXY header reader in front of it on
/// connections from a trusted proxy (`HTTPProxyHeaderHandler`). Wraps another channel as TLS does, so TLS slots in
/// between the two.
struct ProxyProtocolChannel<Base: ServerChildChannel>: ServerChildChannel {
    typealias Value = Base.Value

    let base: Base
    let trustedProxies: TrustedProxies
    let limiter: SourceConnectionLimiter
    let clients: ProxiedClients

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        channel.eventLoop.makeCompletedFuture {
            if trustedProxies.contains(channel.remoteAddress) {
                try channel.pipeline.syncOperations.addHandler(
                    HTTPProxyHeaderHandler(limiter: limiter, clients: clients)
                )
            }
        }.flatMap {
            base.setup(channel: channel, logger: logger)
        }
    }

    func handle(value: Value, logger: Logger) async {
        await base.handle(value: value, logger: logger)
    }
}
