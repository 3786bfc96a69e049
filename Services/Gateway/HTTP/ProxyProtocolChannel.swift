import FoyerRPC
import HummingbirdCore
import Logging
import NIOCore
import NIOSSL

/// The HTTP listener's child channel: the connection guard (`SourceConnectionGuard`), a PROXY header reader on
/// connections from a trusted proxy (`HTTPProxyHeaderHandler`), then the base channel: HTTP/1.1, or TLS with
/// HTTP/2 or HTTP/1.1 (`HTTP2UpgradeChannel`), so the PROXY header is read before the TLS handshake. The first
/// request bytes must come within `firstRequestTimeout` of the accept (`FirstRequestTimeout`, after the TLS handler
/// when there is one, so the handshake counts against the same time).
struct ProxyProtocolChannel<Base: ServerChildChannel>: ServerChildChannel {
    typealias Value = Base.Value

    let base: Base
    let trustedProxies: TrustedProxies
    let limiter: SourceConnectionLimiter
    let clients: ProxiedClients
    /// Whether the base channel speaks TLS (its set-up adds a `NIOSSLServerHandler`).
    var speaksTLS: Bool
    /// How long a new connection may take to send its first request bytes (`FirstRequestTimeout`).
    var firstRequestTimeout: TimeAmount

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        channel.eventLoop.makeCompletedFuture {
            try channel.pipeline.syncOperations.addHandler(SourceConnectionGuard(limiter: limiter))
            if trustedProxies.contains(channel.remoteAddress) {
                try channel.pipeline.syncOperations.addHandler(
                    HTTPProxyHeaderHandler(limiter: limiter, clients: clients)
                )
            }
            if !speaksTLS {
                try channel.pipeline.syncOperations.addHandler(FirstRequestTimeout(timeout: firstRequestTimeout))
            }
        }.flatMap {
            base.setup(channel: channel, logger: logger)
        }.flatMapThrowing { value in
            if speaksTLS {
                let pipeline = channel.pipeline.syncOperations
                let tls = try pipeline.handler(type: NIOSSLServerHandler.self)
                try pipeline.addHandler(FirstRequestTimeout(timeout: firstRequestTimeout), position: .after(tls))
            }
            return value
        }
    }

    func handle(value: Value, logger: Logger) async {
        await base.handle(value: value, logger: logger)
    }
}
