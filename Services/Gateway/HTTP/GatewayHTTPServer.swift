public import FoyerGateway
import Hummingbird
import HummingbirdCore
public import Logging
import NIOCore
import NIOPosix
public import ServiceLifecycle

/// The gateway's HTTP/JSON listener: a Service to run beside the binary listener, dispatching every operation
/// to the same gateway handlers (`GatewayService.router`).
public final class GatewayHTTPServer: Service, Sendable {
    private let application: Application<GatewayHTTPResponder>
    private let bound: EventLoopPromise<Int>

    public init(gateway: GatewayService, configuration: GatewayHTTPConfiguration, logger: Logger) {
        let bound = MultiThreadedEventLoopGroup.singleton.next().makePromise(of: Int.self)
        let limiter = SourceConnectionLimiter(
            connectionsMax: configuration.connectionsMax,
            connectionsPerSourceMax: configuration.connectionsPerSourceMax,
            trustedProxies: configuration.trustedProxies
        )
        self.bound = bound
        let clients = ProxiedClients()
        let channelConfiguration = HTTP1Channel.Configuration(
            additionalChannelHandlers: [SourceConnectionGuard(limiter: limiter)],
            idleTimeout: .seconds(configuration.idleTimeoutSeconds),
            httpDecoderConfiguration: .init(
                maxHeaderFieldSize: configuration.headerByteCountMax,
                maxHeaderListSize: configuration.headerByteCountMax,
                maxHeaderFieldCount: configuration.headerFieldCountMax
            )
        )
        let trustedProxies = configuration.trustedProxies
        application = Application(
            responder: GatewayHTTPResponder(
                gateway: gateway,
                configuration: configuration,
                logger: logger,
                proxiedClients: clients
            ),
            // The one place the connection's channel is set up (a trusted proxy's PROXY header, HTTP/1.1,
            // connection caps, header caps, idle timeout): TLS slots in here.
            server: HTTPServerBuilder { responder in
                ProxyProtocolChannel(
                    base: HTTP1Channel(responder: responder, configuration: channelConfiguration),
                    trustedProxies: trustedProxies,
                    limiter: limiter,
                    clients: clients
                )
            },
            configuration: ApplicationConfiguration(
                address: .hostname(configuration.host, port: configuration.port),
                serverName: nil
            ),
            onServerRunning: { channel in
                bound.succeed(channel.localAddress?.port ?? 0)
            },
            logger: logger
        )
    }

    public func run() async throws {
        do {
            try await application.run()
        } catch {
            bound.fail(error)
            throw error
        }
        bound.fail(CancellationError())
    }

    /// The port the listener is bound to, once it is; throws if it stopped before binding.
    public func boundPort() async throws -> Int {
        try await bound.futureResult.get()
    }
}
