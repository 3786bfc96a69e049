public import FoyerGateway
import FoyerRPC
import Hummingbird
import HummingbirdCore
public import Logging
import NIOCore
public import ServiceLifecycle

/// The gateway's admin listener: a Service to run beside the client listeners, answering the admin API and the
/// console (`AdminHTTPResponder`) over plain HTTP/1.1, with its own connection caps.
public final class AdminHTTPServer: Service, Sendable {
    private let listener: HTTPListener<AdminHTTPResponder>

    public init(gateway: GatewayService, configuration: AdminHTTPConfiguration, logger: Logger) {
        let limiter = SourceConnectionLimiter(
            connectionsMax: configuration.connectionsMax,
            connectionsPerSourceMax: configuration.connectionsPerSourceMax,
            connectionsPerNetworkMax: configuration.connectionsPerNetworkMax,
            trustedProxies: TrustedProxies()
        )
        let firstRequestTimeout = TimeAmount.seconds(configuration.firstRequestTimeoutSeconds)
        let channelConfiguration = HTTPListener<AdminHTTPResponder>.channelConfiguration(
            idleTimeoutSeconds: configuration.idleTimeoutSeconds,
            headerByteCountMax: configuration.headerByteCountMax,
            headerFieldCountMax: configuration.headerFieldCountMax
        )
        listener = HTTPListener(
            responder: AdminHTTPResponder(admin: gateway.admin, configuration: configuration, logger: logger),
            host: configuration.host,
            port: configuration.port,
            server: HTTPServerBuilder { responder in
                ProxyProtocolChannel(
                    base: HTTP1Channel(responder: responder, configuration: channelConfiguration),
                    trustedProxies: TrustedProxies(),
                    limiter: limiter,
                    clients: ProxiedClients(),
                    speaksTLS: false,
                    firstRequestTimeout: firstRequestTimeout
                )
            },
            logger: logger
        )
    }

    public func run() async throws {
        try await listener.run()
    }

    /// The port the listener is bound to, once it is; throws if it stopped before binding.
    public func boundPort() async throws -> Int {
        try await listener.boundPort()
    }
}
