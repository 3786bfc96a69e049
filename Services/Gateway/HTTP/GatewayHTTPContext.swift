public import Hummingbird
public import NIOCore

/// The request context of the HTTP edge: Hummingbird's core storage plus the client's socket address and the
/// connection it came on.
public struct GatewayHTTPContext: RequestContext {
    public var coreContext: CoreRequestContextStorage
    /// The peer of the connection.
    public let remoteAddress: SocketAddress?
    /// This listener's own address on the connection (the one the client connected to).
    public let localAddress: SocketAddress?
    /// The connection (its channel's identity), under which a PROXY header's client is recorded.
    let connection: ObjectIdentifier

    public init(source: ApplicationRequestContextSource) {
        coreContext = CoreRequestContextStorage(source: source)
        remoteAddress = source.channel.remoteAddress
        localAddress = source.channel.localAddress
        connection = ObjectIdentifier(source.channel)
    }
}
