import FoyerWire
import NIOCore

/// The libFuzzer entry point: feeds arbitrary bytes to the frame decoder (server side, preface first, then
/// client side) and every decoded frame's body to the body decoders and the LZ4 decompressor.
///
/// Whatever the input, decoding must end in a value or a `WireError`: never a crash, a hang, or an allocation
/// sized by the input beyond the limits.
enum FuzzTarget {
    static let frameLengthMax: UInt32 = 1 << 20

    static func run(_ bytes: UnsafeRawBufferPointer) {
        let input = ByteBuffer(bytes: bytes)
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
        if let expanded = try? frame.decompressed(
            compressionNegotiated: true,
            maxUncompressedBytes: Int(frameLengthMax) - FrameHeader.lengthCoveredByteCount,
            allocator: allocator
        ) {
            exerciseBody(expanded.body)
        }
        exerciseBody(frame.body)
    }

    static func exerciseBody(_ body: ByteBuffer) {
        _ = try? Hello(decoding: body)
        _ = try? HelloAck(decoding: body)
        _ = try? ErrorBody(decoding: body)
        _ = try? GoAwayBody(decoding: body)
        _ = try? HealthStatus(decoding: body)
        var copy = body
        _ = try? copy.readCount("fuzz", maxCount: 1000, minElementBytes: 1)
        _ = try? copy.readVarint()
        _ = try? copy.readLengthPrefixedString("fuzz", maxBytes: 4096)
        _ = try? BodyCompression.decompress(body, maxUncompressedBytes: 1 << 20, allocator: ByteBufferAllocator())
    }
}

#if FOYER_FUZZING
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    FuzzTarget.run(UnsafeRawBufferPointer(start: data, count: size))
    return 0
}
#else
import Foundation

/// Without libFuzzer (a normal build), replays the files given as arguments: a corpus or a crash reproducer.
@main
struct FuzzReplay {
    static func main() throws {
        let paths = CommandLine.arguments.dropFirst()
        guard !paths.isEmpty else {
            print("usage: foyer-fuzz FILE...   (replays inputs; `make fuzz` builds the libFuzzer version)")
            return
        }
        for path in paths {
            let data = try Data(contentsOf: URL(fileURLWithPath: path))
            data.withUnsafeBytes { FuzzTarget.run($0) }
        }
        print("replayed \(paths.count) input(s) without a crash")
    }
}
#endif
