import FoyerLZ4
import FoyerWire
import NIOCore

/// The `frames` target: feeds arbitrary bytes to the frame decoder (server side, preface first, then client side),
/// every decoded frame's body to the control-body decoders and both LZ4 decompressors (Swift and liblz4), a traced
/// request's trace context (protocol 1.1) to its decoder, and the input itself to the body decoders.
///
/// Whatever the input, decoding must end in a value or a `WireError`: never a crash, a hang, or an allocation
/// sized by the input beyond the limits.
enum FrameFuzzing {
    static let frameLengthMax: UInt32 = 1 << 20
    /// Both block codecs: the client's (Swift) and the services' (liblz4) see every input.
    static let codecs: [LZ4BlockCodec] = [.swift, .liblz4]

    static let target = FuzzTarget(
        name: "frames",
        summary:
            "frame decoder, control bodies (Hello, HelloAck, Error, GoAway, Health), trace context, LZ4 body decompression",
        run: { run(ByteBuffer(bytes: $0)) },
        seeds: { FuzzSeeds.frames }
    )

    static func run(_ input: ByteBuffer) {
        for expectsPreface in [true, false] {
            var decoder = FrameDecoder(expectsPreface: expectsPreface, frameLengthMax: frameLengthMax)
            var buffer = input
            while let frame = try? decoder.decode(buffer: &buffer) {
                exercise(frame)
            }
        }
        // The input as a body on its own, for the body decoders' sake.
        exerciseBody(input)
    }

    static func exercise(_ frame: Frame) {
        let allocator = ByteBufferAllocator()
        var frame = frame
        if let (stripped, context) = try? frame.removingTraceContext(negotiated: true), let context {
            // The context read back in front of the rest must give the frame as it came.
            guard stripped.addingTraceContext(context, allocator: allocator) == frame else {
                FuzzTarget.violated("frames", "a trace context does not re-encode to the bytes it was read from")
            }
            frame = stripped
        }
        for codec in codecs {
            if let expanded = try? frame.decompressed(
                compressionNegotiated: true,
                maxUncompressedBytes: Int(frameLengthMax) - FrameHeader.lengthCoveredByteCount,
                codec: codec,
                allocator: allocator
            ) {
                exerciseBody(expanded.body)
            }
        }
        exerciseBody(frame.body)
    }

    static func exerciseBody(_ body: ByteBuffer) {
        ServiceBodies.reencodes(Hello.self, body, target: "frames")
        ServiceBodies.reencodes(HelloAck.self, body, target: "frames")
        ServiceBodies.reencodes(ErrorBody.self, body, target: "frames")
        ServiceBodies.reencodes(GoAwayBody.self, body, target: "frames")
        ServiceBodies.reencodes(HealthStatus.self, body, target: "frames")
        var copy = body
        _ = try? copy.readCount("fuzz", maxCount: 1000, minElementBytes: 1)
        _ = try? copy.readVarint()
        _ = try? copy.readLengthPrefixedString("fuzz", maxBytes: 4096)
        for codec in codecs {
            _ = try? BodyCompression.decompress(
                body,
                maxUncompressedBytes: 1 << 20,
                codec: codec,
                allocator: ByteBufferAllocator()
            )
        }
    }
}
