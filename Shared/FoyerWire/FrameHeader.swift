public import NIOCore

/// The fixed 16-byte header in front of every frame. Big-endian throughout.
///
/// ```
///  0       4    5     6      8          12         16
///  | len   |type|flags| code | id       | aux      | body ...
///    u32    u8   u8    u16    u32        u32
/// ```
///
/// - `len`: the bytes after the length field, that is 12 + the body length.
/// - `type`: a `FrameType`.
/// - `flags`: `FrameFlags`; reserved bits must be zero.
/// - `code`: the method id of a request, the status of an error, the reason of a GOAWAY; otherwise 0.
/// - `id`: the call id chosen by the client (never 0 on data frames); the echoed value on PING/PONG.
/// - `aux`: the remaining deadline in microseconds on a request (0 = none), a retry-after hint in
///   milliseconds on an error, the grace period in milliseconds on a GOAWAY; otherwise 0.
public struct FrameHeader: Hashable, Sendable {
    /// Bytes of the encoded header, including the length field.
    public static let byteCount = 16
    /// Bytes of the header counted by `len` (everything after the length field).
    public static let lengthCoveredByteCount = 12

    public var type: FrameType
    public var flags: FrameFlags
    public var code: UInt16
    public var id: UInt32
    public var aux: UInt32

    public init(type: FrameType, flags: FrameFlags = [], code: UInt16 = 0, id: UInt32 = 0, aux: UInt32 = 0) {
        self.type = type
        self.flags = flags
        self.code = code
        self.id = id
        self.aux = aux
    }

    /// Writes the header for a body of `bodyLength` bytes.
    public func encode(bodyLength: Int, into buffer: inout ByteBuffer) {
        buffer.writeMultipleIntegers(
            UInt32(Self.lengthCoveredByteCount + bodyLength),
            type.rawValue,
            flags.rawValue,
            code,
            id,
            aux
        )
    }
}
