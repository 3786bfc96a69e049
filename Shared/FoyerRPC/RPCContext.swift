import FoyerWire
public import Logging
public import NIOCore

/// What a handler knows about the call it serves.
public struct RPCContext: Sendable {
    /// The method id of the call.
    public let method: UInt16
    /// The client's call id on its connection (for logs).
    public let callID: UInt32
    /// When the client stops waiting; `nil` if it set no deadline. Pass it on to downstream calls
    /// (`CallOptions(deadline: context.deadline)`), which then send the time that remains.
    public let deadline: NIODeadline?
    /// The address of the peer's socket.
    public let peerAddress: SocketAddress?
    /// The name the peer gave in its HELLO (for logs).
    public let peerName: String
    /// Whether the client marked the call safe to repeat.
    public let isIdempotent: Bool
    public var logger: Logger
    public let allocator: ByteBufferAllocator

    public init(
        method: UInt16,
        callID: UInt32,
        deadline: NIODeadline?,
        peerAddress: SocketAddress?,
        peerName: String,
        isIdempotent: Bool,
        logger: Logger,
        allocator: ByteBufferAllocator
    ) {
        self.method = method
        self.callID = callID
        self.deadline = deadline
        self.peerAddress = peerAddress
        self.peerName = peerName
        self.isIdempotent = isIdempotent
        self.logger = logger
        self.allocator = allocator
    }
}
