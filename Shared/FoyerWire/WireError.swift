/// Everything a peer can get wrong on the wire, from framing to message bodies.
///
/// Equality compares the kind only (`WireError.frameTooLarge == .frameTooLarge(length: 9, limit: 8)`), so
/// tests and callers can match on the kind while logs get the detail.
public struct WireError: Error, Hashable, Sendable, CustomStringConvertible {
    private enum Code: Hashable, Sendable {
        case badPreface, unsupportedVersion, frameTooShort, frameTooLarge, unknownFrameType, reservedFlags
        case flagNotAllowed, unexpectedFrame, truncatedBody, trailingBytes, lengthOverLimit, countOverRemaining
        case invalidUTF8, invalidVarint, invalidValue, compressionNotNegotiated, declaredLengthTooLarge
        case corruptCompressedBody, traceContextNotNegotiated, invalidTraceContext
    }

    private let code: Code
    /// Human-readable detail for logs; not part of equality.
    public let detail: String

    private init(_ code: Code, _ detail: String) {
        self.code = code
        self.detail = detail
    }

    public static func == (lhs: WireError, rhs: WireError) -> Bool { lhs.code == rhs.code }
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }
    public var description: String { detail }

    /// The reason to put in the GOAWAY that closes a connection over this error.
    public var goAwayReason: GoAwayReason {
        switch code {
        case .frameTooLarge: .frameTooLarge
        case .unsupportedVersion: .unsupportedVersion
        case .compressionNotNegotiated, .declaredLengthTooLarge, .corruptCompressedBody: .compressionError
        default: .protocolError
        }
    }

    // MARK: Framing
    public static let badPreface = WireError(.badPreface, "connection did not start with the FOYR preface")
    public static func unsupportedVersion(major: UInt16) -> WireError {
        WireError(.unsupportedVersion, "protocol major version \(major) is not supported (this side speaks 1)")
    }
    public static let unsupportedVersion = unsupportedVersion(major: 0)
    public static func frameTooShort(length: UInt32) -> WireError {
        WireError(.frameTooShort, "frame length \(length) is shorter than the 12 header bytes it must cover")
    }
    public static let frameTooShort = frameTooShort(length: 0)
    public static func frameTooLarge(length: UInt32, limit: UInt32) -> WireError {
        WireError(.frameTooLarge, "frame length \(length) exceeds the limit of \(limit)")
    }
    public static let frameTooLarge = frameTooLarge(length: 0, limit: 0)
    public static func unknownFrameType(_ raw: UInt8) -> WireError {
        WireError(.unknownFrameType, "unknown frame type 0x\(String(raw, radix: 16))")
    }
    public static let unknownFrameType = unknownFrameType(0)
    public static let reservedFlags = WireError(.reservedFlags, "reserved frame flag bits are set")
    public static func flagNotAllowed(_ type: FrameType) -> WireError {
        WireError(.flagNotAllowed, "a flag is set that \(type) frames may not carry")
    }
    public static let flagNotAllowed = flagNotAllowed(.request)
    public static func unexpectedFrame(_ type: FrameType, _ why: String) -> WireError {
        WireError(.unexpectedFrame, "unexpected \(type) frame: \(why)")
    }
    public static let unexpectedFrame = unexpectedFrame(.request, "")

    // MARK: Bodies
    public static let truncatedBody = WireError(.truncatedBody, "message body ends before its last field")
    public static func trailingBytes(_ count: Int) -> WireError {
        WireError(.trailingBytes, "\(count) bytes left over after the message body")
    }
    public static let trailingBytes = trailingBytes(0)
    public static func lengthOverLimit(_ field: String, length: UInt64, limit: Int) -> WireError {
        WireError(.lengthOverLimit, "\(field): length \(length) exceeds the limit of \(limit)")
    }
    public static let lengthOverLimit = lengthOverLimit("", length: 0, limit: 0)
    public static func countOverRemaining(_ field: String, count: UInt64) -> WireError {
        WireError(.countOverRemaining, "\(field): count \(count) is more than the body can hold")
    }
    public static let countOverRemaining = countOverRemaining("", count: 0)
    public static let invalidUTF8 = WireError(.invalidUTF8, "a string field is not valid UTF-8")
    public static let invalidVarint = WireError(.invalidVarint, "a varint is overlong or overflows 64 bits")
    public static func invalidValue(_ field: String) -> WireError {
        WireError(.invalidValue, "\(field): value out of range")
    }
    public static let invalidValue = invalidValue("")

    // MARK: Compression
    public static let compressionNotNegotiated = WireError(
        .compressionNotNegotiated,
        "a compressed body arrived on a connection that did not negotiate compression"
    )
    public static func declaredLengthTooLarge(_ length: UInt32, limit: Int) -> WireError {
        WireError(.declaredLengthTooLarge, "declared uncompressed length \(length) is over the limit of \(limit)")
    }
    public static let declaredLengthTooLarge = declaredLengthTooLarge(0, limit: 0)
    public static let corruptCompressedBody = WireError(
        .corruptCompressedBody,
        "compressed body is corrupt or does not expand to its declared length"
    )

    // MARK: Trace context
    public static let traceContextNotNegotiated = WireError(
        .traceContextNotNegotiated,
        "a trace context arrived on a connection that did not negotiate it"
    )
    public static func invalidTraceContext(_ why: String) -> WireError {
        WireError(.invalidTraceContext, "malformed trace context: \(why)")
    }
    public static let invalidTraceContext = invalidTraceContext("")
}
