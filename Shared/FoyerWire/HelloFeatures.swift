/// Optional features a server announces at the end of its HELLO_ACK (protocol 1.1), to a client whose preface said
/// minor 1 or later; a client must not use one the server did not announce. Bits other than the ones defined here
/// are reserved: a server sends them as 0 and a client ignores them.
public struct HelloFeatures: OptionSet, Hashable, Sendable {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// Bit 0: the server accepts REQUESTs carrying `FrameFlags.traceContext`.
    public static let traceContext = HelloFeatures(rawValue: 1 << 0)
}
