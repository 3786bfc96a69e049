import FoyerWire
import NIOCore
import Testing

/// The trace context of protocol 1.1: its 26 bytes, its `traceparent` text form, and where it sits in a REQUEST.
@Suite("Trace context")
struct TraceContextTests {
    /// W3C's example: `00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01`.
    static let sample = TraceContext(
        traceID: [0x4B, 0xF9, 0x2F, 0x35, 0x77, 0xB3, 0x4D, 0xA6, 0xA3, 0xCE, 0x92, 0x9D, 0x0E, 0x0E, 0x47, 0x36],
        parentID: [0x00, 0xF0, 0x67, 0xAA, 0x0B, 0xA9, 0x02, 0xB7],
        traceFlags: 0x01
    )

    static let sampleBytes: [UInt8] = [
        0x00,
        0x4B, 0xF9, 0x2F, 0x35, 0x77, 0xB3, 0x4D, 0xA6, 0xA3, 0xCE, 0x92, 0x9D, 0x0E, 0x0E, 0x47, 0x36,
        0x00, 0xF0, 0x67, 0xAA, 0x0B, 0xA9, 0x02, 0xB7,
        0x01,
    ]

    @Test("the binary form is version, trace id, parent id, flags: 26 bytes (docs/PROTOCOL.md, 16.3)")
    func binaryForm() throws {
        var buffer = ByteBuffer()
        Self.sample.encode(into: &buffer)
        #expect(Array(buffer.readableBytesView) == Self.sampleBytes)
        #expect(buffer.readableBytes == TraceContext.byteCount)
        #expect(try TraceContext(from: &buffer) == Self.sample)
        #expect(buffer.readableBytes == 0)
        #expect(Self.sample.isSampled)
    }

    @Test("traceparent text and binary form are the same context")
    func traceparent() {
        let text = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
        #expect(TraceContext(traceparent: text) == Self.sample)
        #expect(Self.sample.traceparent == text)
    }

    @Test(
        "malformed traceparent values are not contexts",
        arguments: [
            "", "01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
            "00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01",
            "00-00000000000000000000000000000000-00f067aa0ba902b7-01",
            "00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01",
            "00-4bf92f3577b34da6a3ce929d0e0e473-00f067aa0ba902b7-01",
            "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-extra",
            "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-1",
            "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902bz-01",
        ]
    )
    func malformedTraceparent(text: String) {
        #expect(TraceContext(traceparent: text) == nil)
    }

    @Test("a short prefix, another version or an all-zero id is refused")
    func malformedBinary() {
        func refused(_ bytes: [UInt8]) -> Bool {
            var buffer = ByteBuffer(bytes: bytes)
            return (try? TraceContext(from: &buffer)) == nil
        }
        for length in 0..<TraceContext.byteCount {
            #expect(refused(Array(Self.sampleBytes.prefix(length))), "\(length) bytes")
        }
        var version = Self.sampleBytes
        version[0] = 1
        #expect(refused(version))
        var zeroTrace = Self.sampleBytes
        zeroTrace.replaceSubrange(1..<17, with: [UInt8](repeating: 0, count: 16))
        #expect(refused(zeroTrace))
        var zeroParent = Self.sampleBytes
        zeroParent.replaceSubrange(17..<25, with: [UInt8](repeating: 0, count: 8))
        #expect(refused(zeroParent))
    }

    @Test("a traced REQUEST is the flag and the prefix before the body: the test vector of docs/PROTOCOL.md, 16.3")
    func requestVector() throws {
        let frame = Frame.request(
            id: 1,
            method: 0x0002,
            deadlineMicroseconds: 10_000_000,
            idempotent: true,
            body: ByteBuffer(string: "hi")
        ).addingTraceContext(Self.sample, allocator: ByteBufferAllocator())
        var bytes = ByteBuffer()
        frame.encode(into: &bytes)
        let header: [UInt8] = [
            0x00, 0x00, 0x00, 0x28, 0x01, 0x0A, 0x00, 0x02, 0x00, 0x00, 0x00, 0x01, 0x00, 0x98, 0x96, 0x80,
        ]
        #expect(Array(bytes.readableBytesView) == header + Self.sampleBytes + [0x68, 0x69])
        let (plain, context) = try frame.removingTraceContext(negotiated: true)
        #expect(context == Self.sample)
        #expect(
            plain
                == .request(
                    id: 1,
                    method: 2,
                    deadlineMicroseconds: 10_000_000,
                    idempotent: true,
                    body: ByteBuffer(string: "hi")
                )
        )
    }

    @Test("the prefix stays outside compression: compress, then add; remove, then expand")
    func prefixOutsideCompression() throws {
        let allocator = ByteBufferAllocator()
        let body = ByteBuffer(repeating: 0x61, count: 600)
        let frame = Frame.request(id: 3, method: 2, body: body).compressed(threshold: 512, allocator: allocator)
            .addingTraceContext(Self.sample, allocator: allocator)
        #expect(frame.header.flags == [.compressed, .traceContext])
        #expect(Array(frame.body.readableBytesView.prefix(TraceContext.byteCount)) == Self.sampleBytes)
        let (stripped, context) = try frame.removingTraceContext(negotiated: true)
        #expect(context == Self.sample)
        let expanded = try stripped.decompressed(
            compressionNegotiated: true,
            maxUncompressedBytes: 1 << 20,
            allocator: allocator
        )
        #expect(expanded.body == body && expanded.header.flags.isEmpty)
    }

    @Test("without agreement the flag is refused; a frame without it passes unchanged")
    func negotiation() throws {
        let traced = Frame.request(id: 1, method: 2, body: ByteBuffer(string: "x"))
            .addingTraceContext(Self.sample, allocator: ByteBufferAllocator())
        #expect(throws: WireError.traceContextNotNegotiated) { try traced.removingTraceContext(negotiated: false) }
        #expect(WireError.traceContextNotNegotiated.goAwayReason == .protocolError)
        #expect(WireError.invalidTraceContext.goAwayReason == .protocolError)
        let plain = Frame.request(id: 1, method: 2, body: ByteBuffer(string: "x"))
        let (same, context) = try plain.removingTraceContext(negotiated: false)
        #expect(same == plain && context == nil)
        var short = traced
        short.body = ByteBuffer(bytes: [0, 1, 2])
        #expect(throws: WireError.invalidTraceContext) { try short.removingTraceContext(negotiated: true) }
    }

    @Test("a HELLO_ACK with features: the test vector of docs/PROTOCOL.md, 16.3")
    func ackVector() throws {
        let ack = HelloAck(
            frameLengthMax: 1 << 20,
            maxInFlight: 512,
            compression: .lz4,
            compressionThreshold: 512,
            idleTimeoutMilliseconds: 300_000,
            serverName: "gateway",
            features: .traceContext
        )
        var bytes = ByteBuffer()
        Frame(header: FrameHeader(type: .helloAck), body: ack.encoded()).encode(into: &bytes)
        let expected: [UInt8] = [
            0x00, 0x00, 0x00, 0x25, 0x11, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
            0x00, 0x10, 0x00, 0x00, 0x02, 0x00, 0x01, 0x00, 0x00, 0x02, 0x00, 0x00, 0x04, 0x93, 0xE0,
            0x07, 0x67, 0x61, 0x74, 0x65, 0x77, 0x61, 0x79, 0x00, 0x01,
        ]
        #expect(Array(bytes.readableBytesView) == expected)
        #expect(try HelloAck(decoding: ack.encoded()).features == .traceContext)
    }

    @Test("random contexts and bodies survive frame encoding, decoding and stripping, compressed or not")
    func randomRoundTrips() throws {
        var generator = SystemRandomNumberGenerator()
        let allocator = ByteBufferAllocator()
        for round in 0..<200 {
            let context = TraceContext(
                traceID: (0..<16).map { _ in UInt8.random(in: 1...255, using: &generator) },
                parentID: (0..<8).map { _ in UInt8.random(in: 1...255, using: &generator) },
                traceFlags: UInt8.random(in: 0...255, using: &generator)
            )
            #expect(TraceContext(traceparent: context.traceparent) == context)
            let count = Int.random(in: 0...2000, using: &generator)
            let body = ByteBuffer(bytes: (0..<count).map { _ in UInt8.random(in: 0...3, using: &generator) })
            var frame = Frame.request(id: UInt32(round + 1), method: 2, idempotent: round % 2 == 0, body: body)
            if round % 3 == 0 { frame = frame.compressed(threshold: 64, allocator: allocator) }
            let traced = frame.addingTraceContext(context, allocator: allocator)
            var bytes = ByteBuffer()
            traced.encode(into: &bytes)
            var decoder = FrameDecoder(expectsPreface: false, frameLengthMax: 1 << 20)
            let decoded = try #require(try decoder.decode(buffer: &bytes))
            #expect(decoded == traced)
            let (stripped, read) = try decoded.removingTraceContext(negotiated: true)
            #expect(read == context && stripped == frame)
            let expanded = try stripped.decompressed(
                compressionNegotiated: true,
                maxUncompressedBytes: 1 << 20,
                allocator: allocator
            )
            #expect(expanded.body == body)
        }
    }
}
