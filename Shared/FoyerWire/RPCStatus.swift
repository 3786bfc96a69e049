/// The `code` of an ERROR frame.
///
/// The top four bits say what the caller may assume about the request, so a client can decide about a retry
/// even for a status it does not know:
///
/// | class | bits     | meaning |
/// |-------|----------|---------|
/// | 1     | `0x1nnn` | **not processed**: nothing happened; safe to send again, to any replica |
/// | 2     | `0x2nnn` | **outcome unknown**: it may have happened; send again only if the call is idempotent |
/// | 3     | `0x3nnn` | **rejected**: processed and refused; the same request gets the same answer |
///
/// The low 12 bits below `0x100` are the runtime's; `0x100` and up belong to the services, each in its own
/// range (`0x1nn` identity, `0x2nn` guest-quota, `0x3nn` user-data, `0x4nn` cleanup, `0x5nn` gateway).
/// A status of an unknown class (0 or 4–15) is treated as outcome unknown.
public struct RPCStatus: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: UInt16
    public init(rawValue: UInt16) { self.rawValue = rawValue }

    public enum RetryClass: Sendable, Hashable {
        case notProcessed
        case outcomeUnknown
        case rejected
    }

    public var retryClass: RetryClass {
        switch rawValue >> 12 {
        case 1: .notProcessed
        case 3: .rejected
        default: .outcomeUnknown
        }
    }

    /// Whether a request answered with this status may be sent again, given whether it is idempotent.
    public func allowsRetry(idempotent: Bool) -> Bool {
        switch retryClass {
        case .notProcessed: true
        case .outcomeUnknown: idempotent
        case .rejected: false
        }
    }

    // MARK: Not processed (0x1nnn)
    /// The server is draining or cannot serve the call now; try again (elsewhere).
    public static let unavailable = RPCStatus(rawValue: 0x1001)
    /// More requests in flight than the connection negotiated or the server can take.
    public static let overloaded = RPCStatus(rawValue: 0x1002)

    // MARK: Outcome unknown (0x2nnn)
    /// The handler failed unexpectedly; details are in the server's log only.
    public static let `internal` = RPCStatus(rawValue: 0x2001)
    /// The deadline passed before the answer was ready.
    public static let deadlineExceeded = RPCStatus(rawValue: 0x2002)
    /// The client cancelled the call.
    public static let cancelled = RPCStatus(rawValue: 0x2003)
    /// Client side only, never sent: the connection broke after the request was written, so it may have been
    /// processed.
    public static let connectionLost = RPCStatus(rawValue: 0x2004)

    // MARK: Rejected (0x3nnn)
    /// The request body is malformed or a field is out of range.
    public static let invalidArgument = RPCStatus(rawValue: 0x3001)
    /// No handler for this method id.
    public static let unimplemented = RPCStatus(rawValue: 0x3002)
    public static let unauthenticated = RPCStatus(rawValue: 0x3003)
    public static let permissionDenied = RPCStatus(rawValue: 0x3004)
    public static let notFound = RPCStatus(rawValue: 0x3005)
    public static let alreadyExists = RPCStatus(rawValue: 0x3006)
    /// The system is not in a state in which the call can succeed (for instance a version mismatch).
    public static let failedPrecondition = RPCStatus(rawValue: 0x3007)
    /// A limit or quota refuses the call; `aux` may carry when to try again.
    public static let resourceExhausted = RPCStatus(rawValue: 0x3008)

    public var description: String {
        switch self {
        case .unavailable: "unavailable"
        case .overloaded: "overloaded"
        case .internal: "internal"
        case .deadlineExceeded: "deadline-exceeded"
        case .cancelled: "cancelled"
        case .connectionLost: "connection-lost"
        case .invalidArgument: "invalid-argument"
        case .unimplemented: "unimplemented"
        case .unauthenticated: "unauthenticated"
        case .permissionDenied: "permission-denied"
        case .notFound: "not-found"
        case .alreadyExists: "already-exists"
        case .failedPrecondition: "failed-precondition"
        case .resourceExhausted: "resource-exhausted"
        default: "status-0x" + String(rawValue, radix: 16)
        }
    }
}
