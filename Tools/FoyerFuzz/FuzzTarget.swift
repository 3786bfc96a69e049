import Foundation
import FoyerLZ4
import FoyerWire
import NIOCore

/// The libFuzzer entry point: feeds arbitrary bytes to the frame decoder (server side, preface first, then
/// client side), every decoded frame's body to the body decoders and both LZ4 decompressors (Swift and liblz4), and
/// the input to the gateway's request and response decoders (`GatewayBodies`: the first byte picks the type).
///
/// Whatever the input, decoding must end in a value or a `WireError`: never a crash, a hang, or an allocation
/// sized by the input beyond the limits.
enum FuzzTarget {
    static let frameLengthMax: UInt32 = 1 << 20
    /// Both block codecs: the client's (Swift) and the services' (liblz4) see every input.
    static let codecs: [LZ4BlockCodec] = [.swift, .liblz4]

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
        GatewayBodies.exercise(input)
    }

    static func exercise(_ frame: Frame) {
        let allocator = ByteBufferAllocator()
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
        _ = try? Hello(decoding: body)
        _ = try? HelloAck(decoding: body)
        _ = try? ErrorBody(decoding: body)
        _ = try? GoAwayBody(decoding: body)
        _ = try? HealthStatus(decoding: body)
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

#if FOYER_FUZZING
/// The callback libFuzzer's own `main` looks for (linked in by some linkers whatever main the program has).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    FuzzTarget.run(UnsafeRawBufferPointer(start: data, count: size))
    return 0
}

/// libFuzzer's entry for programs that keep their own `main` (SwiftPM always generates one for an executable).
@_silgen_name("LLVMFuzzerRunDriver")
func LLVMFuzzerRunDriver(
    _ argc: UnsafeMutablePointer<CInt>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>,
    _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt
) -> CInt

@main
struct FuzzMain {
    static func main() throws {
        // `foyer-fuzz seed DIR` writes the starting corpus (`make fuzz` runs it first) instead of fuzzing.
        if CommandLine.arguments.count == 3, CommandLine.arguments[1] == "seed" {
            return try FuzzSeeds.write(into: CommandLine.arguments[2])
        }
        var argc = CommandLine.argc
        var argv = CommandLine.unsafeArgv
        let status = LLVMFuzzerRunDriver(&argc, &argv) { data, size in
            FuzzTarget.run(UnsafeRawBufferPointer(start: data, count: size))
            return 0
        }
        exit(status)
    }
}
#else
/// Without libFuzzer (a normal build), replays the files given as arguments: a corpus or a crash reproducer.
@main
struct FuzzMain {
    static func main() throws {
        let paths = CommandLine.arguments.dropFirst()
        if paths.count == 2, paths.first == "seed" { return try FuzzSeeds.write(into: paths.last!) }
        guard !paths.isEmpty else {
            print("usage: foyer-fuzz FILE...   (replays inputs; `make fuzz` builds the libFuzzer version)")
            print("       foyer-fuzz seed DIR  (writes one valid body of every gateway type into DIR)")
            return
        }
        var decoded: [String: Int] = [:]
        for path in paths {
            let data = try Data(contentsOf: URL(fileURLWithPath: path))
            data.withUnsafeBytes { FuzzTarget.run($0) }
            if let name = GatewayBodies.exercise(ByteBuffer(bytes: data)) { decoded[name, default: 0] += 1 }
        }
        print("replayed \(paths.count) input(s) without a crash")
        // How far the inputs reach into the gateway's bodies: how many decode as each type.
        for check in GatewayBodies.checks {
            print("  \(check.name): \(decoded[check.name, default: 0]) decoded")
        }
    }
}
#endif
