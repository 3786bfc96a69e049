public import NIOCore

/// The body of an ERROR frame.
///
/// ```
/// string message   a human-readable explanation, safe to show a developer (<= 1024 bytes)
/// bytes  details   a service-defined encoding chosen by the status, often empty (<= 64 KiB)
/// ```
public struct ErrorBody: WireMessage, Hashable {
    public static let messageByteCountMax = 1024
    public static let detailsByteCountMax = 64 * 1024

    public var message: String
    public var details: ByteBuffer

    public init(message: String, details: ByteBuffer = ByteBuffer()) {
        self.message = message
        self.details = details
    }

    public init(from buffer: inout ByteBuffer) throws(WireError) {
        message = try buffer.readLengthPrefixedString("error.message", maxBytes: Self.messageByteCountMax)
        details = try buffer.readLengthPrefixedBuffer("error.details", maxBytes: Self.detailsByteCountMax)
    }

    public func encode(into buffer: inout ByteBuffer) {
        buffer.writeLengthPrefixedString(message, truncatingToBytes: Self.messageByteCountMax)
        // Details over the cap cannot be cut without breaking their encoding: they are left out instead.
        buffer.writeLengthPrefixedBuffer(details.readableBytes <= Self.detailsByteCountMax ? details : ByteBuffer())
    }
}

/// The body of a GOAWAY frame: `string message` (<= 256 bytes), for the peer's log.
public struct GoAwayBody: WireMessage, Hashable {
    public static let messageByteCountMax = 256

    public var message: String

    public init(message: String) { self.message = message }

    public init(from buffer: inout ByteBuffer) throws(WireError) {
        message = try buffer.readLengthPrefixedString("goAway.message", maxBytes: Self.messageByteCountMax)
    }

    public func encode(into buffer: inout ByteBuffer) {
        buffer.writeLengthPrefixedString(message, truncatingToBytes: Self.messageByteCountMax)
    }
}
