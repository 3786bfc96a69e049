import FoyerRPC
import NIOCore

/// The `proxy` target: the PROXY protocol header parser (v1 text, v2 binary), which reads the first bytes of every
/// connection on a listener behind a trusted proxy.
///
/// Invariants: a parse that needs more bytes (`nil`) consumes nothing; a header is never longer than the limits
/// (107 bytes for v1, 16 + 512 for v2); and fed the input's prefixes, the parser answers `nil` until the header is
/// complete and then the same header, consuming the same bytes.
enum ProxyHeaderFuzzing {
    /// The longest header the parser may consume.
    static let headerByteCountMax = 16 + 512
    /// The 12 bytes a v2 header starts with (for the seeds).
    static let v2Signature: [UInt8] = [0x0D, 0x0A, 0x0D, 0x0A, 0x00, 0x0D, 0x0A, 0x51, 0x55, 0x49, 0x54, 0x0A]

    static let target = FuzzTarget(
        name: "proxy",
        summary: "PROXY protocol v1/v2 header parser",
        run: { run(ByteBuffer(bytes: $0)) },
        seeds: { FuzzSeeds.proxyHeaders }
    )

    static func run(_ input: ByteBuffer) {
        var buffer = input
        let outcome = Result { try ProxyHeader.parse(&buffer) }
        let consumed = buffer.readerIndex - input.readerIndex
        guard case .success(let header) = outcome else { return }
        guard let header else {
            guard consumed == 0 else { FuzzTarget.violated("proxy", "an incomplete header consumed \(consumed) bytes") }
            return
        }
        guard consumed > 0, consumed <= headerByteCountMax else {
            FuzzTarget.violated("proxy", "a header of \(consumed) bytes")
        }
        for length in 0..<consumed {
            var prefix = input.getSlice(at: input.readerIndex, length: length)!
            guard case .success(nil) = Result(catching: { try ProxyHeader.parse(&prefix) }) else {
                FuzzTarget.violated(
                    "proxy",
                    "the first \(length) bytes of a \(consumed)-byte header do not ask for more"
                )
            }
        }
        var exact = input.getSlice(at: input.readerIndex, length: consumed)!
        guard case .success(header) = Result(catching: { try ProxyHeader.parse(&exact) }), exact.readableBytes == 0
        else { FuzzTarget.violated("proxy", "the header alone parses differently from the header and what follows") }
    }
}
