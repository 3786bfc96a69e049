public import Hummingbird
public import NIOCore

/// The request context of the HTTP edge: Hummingbird's core storage plus the client's socket address.
public struct GatewayHTTPContext: RequestContext {
    public var coreContext: CoreRequestContextStorage
    /// The peer of the connection.
    public let remoteAddress: SocketAddress?

    public init(source: ApplicationRequestContextSource) {
        coreContext = CoreRequestContextStorage(source: source)
        remoteAddress = source.channel.remoteAddress
    }
}
