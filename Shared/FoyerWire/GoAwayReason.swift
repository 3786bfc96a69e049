/// The `code` of a GOAWAY frame: why the sender is closing the connection.
public struct GoAwayReason: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: UInt16
    public init(rawValue: UInt16) { self.rawValue = rawValue }

    /// Graceful shutdown: in-flight requests are answered within the grace period, new ones get `unavailable`.
    public static let shutdown = GoAwayReason(rawValue: 0)
    public static let protocolError = GoAwayReason(rawValue: 1)
    public static let frameTooLarge = GoAwayReason(rawValue: 2)
    public static let unsupportedVersion = GoAwayReason(rawValue: 3)
    public static let authenticationFailed = GoAwayReason(rawValue: 4)
    public static let handshakeTimeout = GoAwayReason(rawValue: 5)
    public static let idleTimeout = GoAwayReason(rawValue: 6)
    public static let slowFrame = GoAwayReason(rawValue: 7)
    public static let tooManyConnections = GoAwayReason(rawValue: 8)
    public static let flood = GoAwayReason(rawValue: 9)
    public static let internalError = GoAwayReason(rawValue: 10)
    public static let compressionError = GoAwayReason(rawValue: 11)

    public var description: String {
        switch self {
        case .shutdown: "shutdown"
        case .protocolError: "protocol-error"
        case .frameTooLarge: "frame-too-large"
        case .unsupportedVersion: "unsupported-version"
        case .authenticationFailed: "authentication-failed"
        case .handshakeTimeout: "handshake-timeout"
        case .idleTimeout: "idle-timeout"
        case .slowFrame: "slow-frame"
        case .tooManyConnections: "too-many-connections"
        case .flood: "flood"
        case .internalError: "internal-error"
        case .compressionError: "compression-error"
        default: "reason-\(rawValue)"
        }
    }
}
