import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import NIOPosix

/// A Hummingbird application on one address, and the port it bound: what the gateway's HTTP listeners (the client
/// API, the admin API) share.
final class HTTPListener<Responder: HTTPResponder>: Sendable where Responder.Context == GatewayHTTPContext {
    private let application: Application<Responder>
    private let bound: EventLoopPromise<Int>

    init(responder: Responder, host: String, port: Int, server: HTTPServerBuilder, logger: Logger) {
        let bound = MultiThreadedEventLoopGroup.singleton.next().makePromise(of: Int.self)
        self.bound = bound
        application = Application(
            responder: responder,
            server: server,
            configuration: ApplicationConfiguration(address: .hostname(host, port: port), serverName: nil),
            onServerRunning: { channel in
                bound.succeed(channel.localAddress?.port ?? 0)
            },
            logger: logger
        )
    }

    /// The HTTP/1.1 channel settings of a listener: its idle timeout and header caps (a head past them is answered
    /// 431, ``RequestHeadTooLargeHandler``).
    static func channelConfiguration(
        idleTimeoutSeconds: Int64,
        headerByteCountMax: Int,
        headerFieldCountMax: Int
    ) -> HTTP1Channel.Configuration {
        HTTP1Channel.Configuration(
            additionalChannelHandlers: [
                RequestHeadTooLargeHandler(
                    headerByteCountMax: headerByteCountMax,
                    headerFieldCountMax: headerFieldCountMax
                )
            ],
            idleTimeout: .seconds(idleTimeoutSeconds),
            httpDecoderConfiguration: .init(
                maxHeaderFieldSize: headerByteCountMax,
                maxHeaderListSize: headerByteCountMax,
                maxHeaderFieldCount: headerFieldCountMax
            )
        )
    }

    func run() async throws {
        do {
            try await application.run()
        } catch {
            bound.fail(error)
            throw error
        }
        bound.fail(CancellationError())
    }

    /// The port the listener is bound to, once it is; throws if it stopped before binding.
    func boundPort() async throws -> Int {
        try await bound.futureResult.get()
    }
}
