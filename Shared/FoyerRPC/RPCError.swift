public import FoyerWire
public import NIOCore

/// The error every call can fail with: a status (whose class tells whether a retry is safe), a message that
/// is safe to show a developer, optional service-defined details, and an optional retry-after hint.
///
/// Handlers throw `RPCError` to answer with a specific status; anything else they throw becomes `internal`
/// with a generic message, the detail going to the server's log only.
public struct RPCError: Error, Hashable, Sendable, CustomStringConvertible {
    public var status: RPCStatus
    public var message: String
    public var details: ByteBuffer
    /// A hint from the server (ERROR `aux`), or from the client's own backoff; zero when none.
    public var retryAfterMilliseconds: UInt32

    public init(
        _ status: RPCStatus,
        _ message: String,
        details: ByteBuffer = ByteBuffer(),
        retryAfterMilliseconds: UInt32 = 0
    ) {
        self.status = status
        self.message = message
        self.details = details
        self.retryAfterMilliseconds = retryAfterMilliseconds
    }

    public var description: String { "\(status): \(message)" }

    public static func invalidArgument(_ message: String) -> RPCError { RPCError(.invalidArgument, message) }
    public static func notFound(_ message: String) -> RPCError { RPCError(.notFound, message) }
    public static func unauthenticated(_ message: String) -> RPCError { RPCError(.unauthenticated, message) }
    public static func permissionDenied(_ message: String) -> RPCError { RPCError(.permissionDenied, message) }
    public static func failedPrecondition(_ message: String) -> RPCError { RPCError(.failedPrecondition, message) }
    public static func unavailable(_ message: String) -> RPCError { RPCError(.unavailable, message) }
    public static func deadlineExceeded(_ message: String = "the deadline passed before an answer came") -> RPCError {
        RPCError(.deadlineExceeded, message)
    }
    public static func cancelled(_ message: String = "the call was cancelled") -> RPCError {
        RPCError(.cancelled, message)
    }
}

extension RPCError {
    /// Builds the error from an ERROR frame.
    init(frame: Frame) {
        let status = RPCStatus(rawValue: frame.header.code)
        if let body = try? ErrorBody(decoding: frame.body) {
            self.init(status, body.message, details: body.details, retryAfterMilliseconds: frame.header.aux)
        } else {
            self.init(status, "(the server sent an unreadable error body)", retryAfterMilliseconds: frame.header.aux)
        }
    }

    /// The ERROR frame that answers request `id` with this error.
    func frame(id: UInt32, allocator: ByteBufferAllocator) -> Frame {
        .error(
            id: id,
            status: status,
            retryAfterMilliseconds: retryAfterMilliseconds,
            body: ErrorBody(message: message, details: details).encoded(allocator: allocator)
        )
    }
}
