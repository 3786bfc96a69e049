internal import FoyerSwiftLZ4

/// The LZ4 block codec under `BodyCompression`: how one block is compressed and expanded.
///
/// The wire format does not depend on it: every codec reads and writes the standard LZ4 block format, so a body
/// compressed by one expands with any other. Two are provided: ``swift`` (the default, in Swift alone, so the
/// wire protocol builds wherever Swift does, iOS included) and `liblz4` (in `FoyerLZ4`, over the system's
/// liblz4, which the services use on their hot path).
public struct LZ4BlockCodec: Sendable, CustomStringConvertible {
    /// A short name for logs and benchmark tables (`swift`, `liblz4`).
    public let name: String
    /// The worst-case compressed size of a body of that many bytes, or `nil` if the body is too large.
    public let compressBound: @Sendable (_ byteCount: Int) -> Int?
    /// Compresses `source` into `destination`; the number of bytes written, or `nil` if `destination` is too small
    /// or `source` too large. A `destination` of `compressBound(source.count)` bytes never fails.
    public let compress:
        @Sendable (_ source: UnsafeRawBufferPointer, _ destination: UnsafeMutableRawBufferPointer) ->
            Int?
    /// Expands one block into `destination`; `true` only if the block is well formed and fills `destination`
    /// exactly. Never reads or writes outside the two buffers, whatever the block.
    public let decompress:
        @Sendable (_ source: UnsafeRawBufferPointer, _ destination: UnsafeMutableRawBufferPointer) -> Bool

    public init(
        name: String,
        compressBound: @escaping @Sendable (_ byteCount: Int) -> Int?,
        compress:
            @escaping @Sendable (_ source: UnsafeRawBufferPointer, _ destination: UnsafeMutableRawBufferPointer)
            -> Int?,
        decompress:
            @escaping @Sendable (
                _ source: UnsafeRawBufferPointer, _ destination: UnsafeMutableRawBufferPointer
            ) -> Bool
    ) {
        self.name = name
        self.compressBound = compressBound
        self.compress = compress
        self.decompress = decompress
    }

    public var description: String { name }

    /// LZ4 in Swift (`FoyerSwiftLZ4`): no C library, byte-compatible with liblz4. The default everywhere.
    public static let swift = LZ4BlockCodec(
        name: "swift",
        compressBound: { LZ4.compressBound($0) },
        compress: { LZ4.compress($0, into: $1) },
        decompress: { source, destination in (try? LZ4.decompress(source, into: destination)) != nil }
    )
}
