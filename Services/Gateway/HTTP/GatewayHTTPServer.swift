public import FoyerGateway
import FoyerRPC
import Hummingbird
import HummingbirdCore
import HummingbirdHTTP2
public import Logging
import NIOCore
import NIOPosix
public import ServiceLifecycle

/// The gateway's HTTP/JSON listener: a Service to run beside the binary listener, dispatching every operation
/// to the same gateway handlers (`GatewayService.router`). Plaintext HTTP/1.1, or HTTPS with HTTP/2 and HTTP/1.1
/// when the configuration has `tls`.
public final class GatewayHTTPServer: Service, Sendable {
    private let listener: HTTPListener<GatewayHTTPResponder>
    /// The HTTPS listener's certificate and key, which new connections take from it: reload it to renew them (the
    /// executable does on SIGHUP). nil when the configuration has no `tls`.
    public let certificate: ReloadableServerCertificate?

    /// Builds the listener; with `tls`, reads its certificate and key now.
    /// - Throws: `RPCError` `.invalidArgument` when a TLS file cannot be read or the key does not match.
    public init(gateway: GatewayService, configuration: GatewayHTTPConfiguration, logger: Logger) throws {
        let limiter = SourceConnectionLimiter(
            connectionsMax: configuration.connectionsMax,
            connectionsPerSourceMax: configuration.connectionsPerSourceMax,
            connectionsPerNetworkMax: configuration.connectionsPerNetworkMax,
            trustedProxies: configuration.trustedProxies
        )
        let clients = ProxiedClients()
        // The connection guard sits on the connection (`ProxyProtocolChannel`), not here: on HTTP/2 these handlers
        // are each stream's.
        let channelConfiguration = HTTPListener<GatewayHTTPResponder>.channelConfiguration(
            idleTimeoutSeconds: configuration.idleTimeoutSeconds,
            headerByteCountMax: configuration.headerByteCountMax,
            headerFieldCountMax: configuration.headerFieldCountMax
        )
        let trustedProxies = configuration.trustedProxies
        let certificate = try configuration.tls.map(ReloadableServerCertificate.init)
        self.certificate = certificate
        let idleTimeout = Duration.seconds(configuration.idleTimeoutSeconds)
        let firstRequestTimeout = TimeAmount.seconds(configuration.firstRequestTimeoutSeconds)
        listener = HTTPListener(
            responder: GatewayHTTPResponder(
                gateway: gateway,
                configuration: configuration,
                logger: logger,
                proxiedClients: clients,
                files: ServedFiles(configuration),
                tracing: HTTPEdgeTracing(continuesTraceparent: configuration.continuesTraceparent)
            ),
            host: configuration.host,
            port: configuration.port,
            // The one place the connection's channel is set up: a trusted proxy's PROXY header, then TLS (when
            // configured, with the certificate's current chain and key; ALPN picks HTTP/2 or HTTP/1.1), then HTTP;
            // connection caps, header caps, idle timeout.
            server: HTTPServerBuilder { responder in
                guard let certificate else {
                    return ProxyProtocolChannel(
                        base: HTTP1Channel(responder: responder, configuration: channelConfiguration),
                        trustedProxies: trustedProxies,
                        limiter: limiter,
                        clients: clients,
                        speaksTLS: false,
                        firstRequestTimeout: firstRequestTimeout
                    )
                }
                return ProxyProtocolChannel(
                    base: try HTTP2UpgradeChannel(
                        tlsConfiguration: certificate.serverConfiguration(),
                        configuration: HTTP2ChannelConfiguration(
                            idleTimeout: idleTimeout,
                            streamConfiguration: channelConfiguration
                        ),
                        responder: responder
                    ),
                    trustedProxies: trustedProxies,
                    limiter: limiter,
                    clients: clients,
                    speaksTLS: true,
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
