/// The `type` byte of a frame header.
///
/// Data frames carry calls (`request`, `response`, `error`, `cancel`); control frames manage the connection
/// (`hello`, `helloAck`, `ping`, `pong`, `goAway`). Any other value is a protocol error.
public struct FrameType: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: UInt8

    /// Returns `nil` for a value that is not a defined frame type.
    public init?(rawValue: UInt8) {
        switch rawValue {
        case 0x01...0x04, 0x10...0x14: self.rawValue = rawValue
        default: return nil
        }
    }

    private init(_ rawValue: UInt8) { self.rawValue = rawValue }

    /// A call: `code` is the method id, `id` the call id, `aux` the remaining deadline in microseconds.
    public static let request = FrameType(0x01)
    /// The successful answer to the request with the same `id`.
    public static let response = FrameType(0x02)
    /// The failed answer to the request with the same `id`: `code` is the status, `aux` a retry-after hint.
    public static let error = FrameType(0x03)
    /// The client no longer wants the answer to request `id`; the server still answers it exactly once.
    public static let cancel = FrameType(0x04)
    /// First frame of the client after the preface: limits, compression, authentication proof.
    public static let hello = FrameType(0x10)
    /// The server's answer to `hello`: the limits and compression in force for the connection.
    public static let helloAck = FrameType(0x11)
    /// Keepalive probe; the peer answers `pong` with the same `id`.
    public static let ping = FrameType(0x12)
    /// Answer to `ping`.
    public static let pong = FrameType(0x13)
    /// The sender accepts no new requests on this connection: `code` is the reason, `aux` the grace in ms.
    public static let goAway = FrameType(0x14)

    /// Whether a frame of this type may set `FrameFlags.compressed`.
    public var allowsCompression: Bool { self == .request || self == .response }

    public var description: String {
        switch self {
        case .request: "REQUEST"
        case .response: "RESPONSE"
        case .error: "ERROR"
        case .cancel: "CANCEL"
        case .hello: "HELLO"
        case .helloAck: "HELLO_ACK"
        case .ping: "PING"
        case .pong: "PONG"
        case .goAway: "GOAWAY"
        default: "0x" + String(rawValue, radix: 16)
        }
    }
}
