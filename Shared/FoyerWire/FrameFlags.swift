/// The `flags` byte of a frame header. Bits other than the ones defined here are reserved and must be zero.
public struct FrameFlags: OptionSet, Hashable, Sendable {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// Bit 0: the body is `u32 uncompressedLength` followed by one LZ4 block. Only on `REQUEST` and `RESPONSE`.
    public static let compressed = FrameFlags(rawValue: 1 << 0)
    /// Bit 3: the request may be sent again even if its outcome is unknown. Only on `REQUEST`.
    public static let idempotent = FrameFlags(rawValue: 1 << 3)

    /// Every bit with a meaning; the others are reserved.
    public static let defined: FrameFlags = [.compressed, .idempotent]
}
