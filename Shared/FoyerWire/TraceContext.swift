public import NIOCore

/// A W3C trace context (`traceparent`) in binary form, the prefix of a REQUEST body that carries the
/// `TRACE_CONTEXT` flag (protocol 1.1; docs/PROTOCOL.md, "Trace context").
///
/// ```
/// u8        version      0
/// 16 bytes  traceID      the trace, not all zero
/// 8 bytes   parentID     the caller's span, not all zero
/// u8        traceFlags   bit 0: sampled; the other bits are passed on as they came
/// ```
///
/// 26 bytes, never compressed. The text form is W3C's `traceparent` header: `00-<32 hex>-<16 hex>-<2 hex>`.
public struct TraceContext: Hashable, Sendable {
    /// Bytes of the binary form.
    public static let byteCount = 26
    /// The only version this code reads or writes.
    public static let version: UInt8 = 0

    /// The trace id, 16 bytes.
    public var traceID: [UInt8]
    /// The id of the span that made the call, 8 bytes.
    public var parentID: [UInt8]
    public var traceFlags: UInt8

    /// - Precondition: `traceID` has 16 bytes and `parentID` 8 (a caller's bug otherwise).
    public init(traceID: [UInt8], parentID: [UInt8], traceFlags: UInt8) {
        precondition(traceID.count == 16 && parentID.count == 8, "trace id 16 bytes, parent id 8 bytes")
        self.traceID = traceID
        self.parentID = parentID
        self.traceFlags = traceFlags
    }

    /// Whether the caller records this trace (bit 0 of `traceFlags`).
    public var isSampled: Bool { traceFlags & 1 == 1 }

    /// Reads the 26 bytes.
    ///
    /// - Throws: `WireError.invalidTraceContext` if fewer bytes are there, the version is not 0, or an id is all zero.
    public init(from buffer: inout ByteBuffer) throws(WireError) {
        guard buffer.readableBytes >= Self.byteCount, let version = buffer.readInteger(as: UInt8.self) else {
            throw .invalidTraceContext("shorter than \(Self.byteCount) bytes")
        }
        guard version == Self.version else { throw .invalidTraceContext("version \(version)") }
        traceID = buffer.readBytes(length: 16)!
        parentID = buffer.readBytes(length: 8)!
        traceFlags = buffer.readInteger(as: UInt8.self)!
        guard traceID.contains(where: { $0 != 0 }) else { throw .invalidTraceContext("trace id all zero") }
        guard parentID.contains(where: { $0 != 0 }) else { throw .invalidTraceContext("parent id all zero") }
    }

    public func encode(into buffer: inout ByteBuffer) {
        buffer.writeInteger(Self.version)
        buffer.writeBytes(traceID)
        buffer.writeBytes(parentID)
        buffer.writeInteger(traceFlags)
    }

    // MARK: The `traceparent` header

    /// Parses a `traceparent` header value of version 00 (`00-<32 hex>-<16 hex>-<2 hex>`, lower-case hex); `nil` for
    /// anything else, all-zero ids included.
    public init?(traceparent: String) {
        let fields = traceparent.split(separator: "-", omittingEmptySubsequences: false)
        guard fields.count == 4, fields[0] == "00", let traceID = Self.bytes(hex: fields[1], count: 16),
            let parentID = Self.bytes(hex: fields[2], count: 8), let flags = Self.bytes(hex: fields[3], count: 1),
            traceID.contains(where: { $0 != 0 }), parentID.contains(where: { $0 != 0 })
        else { return nil }
        self.init(traceID: traceID, parentID: parentID, traceFlags: flags[0])
    }

    /// The `traceparent` header value: `00-<trace id>-<parent id>-<flags>` in lower-case hex.
    public var traceparent: String {
        "00-" + Self.hex(traceID) + "-" + Self.hex(parentID) + "-" + Self.hex([traceFlags])
    }

    private static func bytes(hex: Substring, count: Int) -> [UInt8]? {
        let digits = Array(hex.utf8)
        guard digits.count == count * 2 else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(count)
        for index in stride(from: 0, to: digits.count, by: 2) {
            guard let high = nibble(digits[index]), let low = nibble(digits[index + 1]) else { return nil }
            bytes.append(high << 4 | low)
        }
        return bytes
    }

    private static func nibble(_ digit: UInt8) -> UInt8? {
        switch digit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
        default: nil
        }
    }

    private static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(bytes.count * 2)
        for byte in bytes {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: text, as: UTF8.self)
    }
}
