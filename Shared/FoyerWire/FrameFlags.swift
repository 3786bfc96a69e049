/// The `flags` byte of a frame header. Bits other than the ones defined here are reserved and must be zero.
public struct FrameFlags: OptionSet, Hashable, Sendable {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// Bit 0: the body is `u32 uncompressedLength` followed by one LZ4 block. Only on `REQUEST` and `RESPONSE`.
    public static let compressed = FrameFlags(rawValue: 1 << 0)
    /// Bit 1 (protocol 1.1): the body starts with a 26-byte `TraceContext`, before the (possibly compressed)
    /// message. Only on `REQUEST`, and only on a connection whose HELLO_ACK announced `HelloFeatures.traceContext`.
    public static let traceContext = FrameFlags(rawValue: 1 << 1)
    /// Bit 3: the request may be sent again even if its outcome is unknown. Only on `REQUEST`.
    public static let idempotent = FrameFlags(rawValue: 1 << 3)

    /// Every bit with a meaning; the others are reserved.
    public static let defined: FrameFlags = [.compressed, .traceContext, .idempotent]
}
