import FoyerWire
import NIOCore
import NIOTestUtils
import Testing

@Suite("Frame decoder")
struct FrameDecoderTests {
    static func encoded(_ frames: [Frame], preface: Bool) -> ByteBuffer {
        var buffer = ByteBuffer()
        if preface { Preface.current.encode(into: &buffer) }
        for frame in frames { frame.encode(into: &buffer) }
        return buffer
    }

    static func decodeAll(_ bytes: [UInt8], expectsPreface: Bool = false, limit: UInt32 = 1 << 20) throws -> [Frame] {
        var decoder = FrameDecoder(expectsPreface: expectsPreface, frameLengthMax: limit)
        var buffer = ByteBuffer(bytes: bytes)
        var frames: [Frame] = []
        while let frame = try decoder.decode(buffer: &buffer) { frames.append(frame) }
        return frames
    }

    static let sampleFrames: [Frame] = [
        Frame(header: FrameHeader(type: .hello), body: ByteBuffer(bytes: [1, 2, 3])),
        .request(
            id: 1,
            method: 0x0102,
            deadlineMicroseconds: 5_000,
            idempotent: true,
            body: ByteBuffer(string: "hello")
        ),
        .request(id: 2, method: 0x0102, body: ByteBuffer()),
        .cancel(id: 1),
        .ping(id: 9),
        .request(id: 3, method: 7, body: ByteBuffer(repeating: 0xAB, count: 10_000)),
        Frame.request(id: 4, method: 7, idempotent: true, body: ByteBuffer(string: "traced"))
            .addingTraceContext(TraceContextTests.sample, allocator: ByteBufferAllocator()),
    ]

    @Test("decodes client frames byte by byte and coalesced alike (ByteToMessageDecoderVerifier)")
    func verifierServerSide() throws {
        // The verifier feeds one decoder the same stream three times, so the one-time preface is covered by
        // the drip-feed test below.
        let bytes = Self.encoded(Self.sampleFrames, preface: false)
        try ByteToMessageDecoderVerifier.verifyDecoder(
            inputOutputPairs: [(bytes, Self.sampleFrames)],
            decoderFactory: { FrameDecoder(expectsPreface: false, frameLengthMax: 1 << 20) }
        )
    }

    @Test("the preface and the frames after it decode the same fed one byte at a time or all at once")
    func prefaceDripFeed() throws {
        let bytes = Array(Self.encoded(Self.sampleFrames, preface: true).readableBytesView)
        var decoder = FrameDecoder(expectsPreface: true, frameLengthMax: 1 << 20)
        var buffer = ByteBuffer()
        var frames: [Frame] = []
        for byte in bytes {
            buffer.writeInteger(byte)
            while let frame = try decoder.decode(buffer: &buffer) { frames.append(frame) }
        }
        #expect(frames == Self.sampleFrames)
        #expect(try Self.decodeAll(bytes, expectsPreface: true) == Self.sampleFrames)
    }

    @Test("decodes byte by byte and coalesced alike, without a preface (client side)")
    func verifierClientSide() throws {
        let frames: [Frame] = [
            Frame(header: FrameHeader(type: .helloAck), body: ByteBuffer(bytes: [0, 1])),
            .response(id: 1, body: ByteBuffer(string: "ok")),
            .error(id: 2, status: .notFound, retryAfterMilliseconds: 10, body: ByteBuffer(bytes: [0, 0])),
            .goAway(reason: .shutdown, graceMilliseconds: 1000, body: ByteBuffer()),
        ]
        try ByteToMessageDecoderVerifier.verifyDecoder(
            inputOutputPairs: [(Self.encoded(frames, preface: false), frames)],
            decoderFactory: { FrameDecoder(expectsPreface: false, frameLengthMax: 1 << 20) }
        )
    }

    @Test("a partial frame yields nothing and consumes nothing")
    func partialFrameWaits() throws {
        var decoder = FrameDecoder(expectsPreface: false, frameLengthMax: 1 << 20)
        var whole = ByteBuffer()
        Frame.response(id: 1, body: ByteBuffer(string: "abcdef")).encode(into: &whole)
        var partial = whole.getSlice(at: 0, length: whole.readableBytes - 1)!
        #expect(try decoder.decode(buffer: &partial) == nil)
        #expect(partial.readerIndex == 0)
    }

    @Test("a wrong preface is refused, even before 8 bytes are in")
    func wrongPreface() {
        #expect(throws: WireError.badPreface) {
            try Self.decodeAll(Array("GET / HTTP/1.1\r\n".utf8), expectsPreface: true)
        }
        #expect(throws: WireError.badPreface) { try Self.decodeAll([0x46, 0x4F, 0x58], expectsPreface: true) }
    }

    @Test("another major version is refused")
    func unsupportedMajor() {
        #expect(throws: WireError.unsupportedVersion) {
            try Self.decodeAll([0x46, 0x4F, 0x59, 0x52, 0, 2, 0, 0], expectsPreface: true)
        }
    }

    @Test("lengths of 0 and below the header size are refused")
    func lengthTooShort() {
        #expect(throws: WireError.frameTooShort) { try Self.decodeAll([0, 0, 0, 0]) }
        #expect(throws: WireError.frameTooShort) { try Self.decodeAll([0, 0, 0, 11]) }
    }

    @Test("a length of 2^32-1 is refused from the 4 length bytes alone, before any body is buffered")
    func lengthHuge() {
        #expect(throws: WireError.frameTooLarge) { try Self.decodeAll([0xFF, 0xFF, 0xFF, 0xFF]) }
    }

    @Test("before the handshake a frame may be at most 4 KiB; after it, the negotiated limit applies")
    func handshakeLimit() throws {
        let big = Frame(header: FrameHeader(type: .hello), body: ByteBuffer(repeating: 0, count: 4096))
        #expect(throws: WireError.frameTooLarge) {
            try Self.decodeAll(Array(Self.encoded([big], preface: false).readableBytesView))
        }
        let small = Frame(header: FrameHeader(type: .hello), body: ByteBuffer(repeating: 0, count: 10))
        let request = Frame.request(id: 1, method: 1, body: ByteBuffer(repeating: 0, count: 8000))
        let frames = try Self.decodeAll(Array(Self.encoded([small, request], preface: false).readableBytesView))
        #expect(frames.count == 2)
        let tooBig = Frame.request(id: 2, method: 1, body: ByteBuffer(repeating: 0, count: 2000))
        #expect(throws: WireError.frameTooLarge) {
            try Self.decodeAll(Array(Self.encoded([small, tooBig], preface: false).readableBytesView), limit: 1000)
        }
    }

    @Test("unknown frame types are refused", arguments: [0x00, 0x05, 0x0F, 0x15, 0xFF] as [UInt8])
    func unknownType(type: UInt8) {
        let bytes: [UInt8] = [0, 0, 0, 12, type, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0]
        #expect(throws: WireError.unknownFrameType) { try Self.decodeAll(bytes) }
    }

    @Test("reserved flag bits are refused", arguments: [0x04, 0x10, 0x20, 0x40, 0x80] as [UInt8])
    func reservedFlags(flag: UInt8) {
        let bytes: [UInt8] = [0, 0, 0, 12, 0x01, flag, 0, 1, 0, 0, 0, 1, 0, 0, 0, 0]
        #expect(throws: WireError.reservedFlags) { try Self.decodeAll(bytes) }
    }

    @Test("COMPRESSED outside REQUEST/RESPONSE, IDEMPOTENT and TRACE_CONTEXT outside REQUEST are refused")
    func flagsOnWrongTypes() {
        let compressedPing: [UInt8] = [0, 0, 0, 12, 0x12, 0x01, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0]
        let idempotentResponse: [UInt8] = [0, 0, 0, 12, 0x02, 0x08, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0]
        let tracedResponse: [UInt8] = [0, 0, 0, 12, 0x02, 0x02, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0]
        let tracedCancel: [UInt8] = [0, 0, 0, 12, 0x04, 0x02, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0]
        #expect(throws: WireError.flagNotAllowed) { try Self.decodeAll(compressedPing) }
        #expect(throws: WireError.flagNotAllowed) { try Self.decodeAll(idempotentResponse) }
        #expect(throws: WireError.flagNotAllowed) { try Self.decodeAll(tracedResponse) }
        #expect(throws: WireError.flagNotAllowed) { try Self.decodeAll(tracedCancel) }
    }

    @Test("a frame truncated at end of stream yields nothing and no crash")
    func truncatedAtEOF() throws {
        var decoder = FrameDecoder(expectsPreface: false, frameLengthMax: 1 << 20)
        var buffer = ByteBuffer(bytes: [0, 0, 0, 40, 0x02, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 2, 3])
        #expect(try decoder.decodeLast(buffer: &buffer, seenEOF: true) == nil)
    }
}
