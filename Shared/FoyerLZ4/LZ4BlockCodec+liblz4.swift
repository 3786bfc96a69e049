public import FoyerWire

extension LZ4BlockCodec {
    /// LZ4 over the system's liblz4 (`LZ4_compress_default`, `LZ4_decompress_safe`): what the services run on their
    /// connections. It makes the same block format as ``LZ4BlockCodec/swift``, so either side may use either.
    public static let liblz4 = LZ4BlockCodec(
        name: "liblz4",
        compressBound: { LZ4.compressBound($0) },
        compress: { LZ4.compress($0, into: $1) },
        decompress: { source, destination in (try? LZ4.decompress(source, into: destination)) != nil }
    )
}
