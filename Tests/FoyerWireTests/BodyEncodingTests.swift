import FoyerWire
import NIOCore
import Testing

@Suite("Body encoding")
struct BodyEncodingTests {
    @Test(
        "varints round-trip in their shortest form",
        arguments: [0, 1, 127, 128, 300, 16_383, 16_384, UInt64(UInt32.max), UInt64.max - 1, UInt64.max] as [UInt64]
    )
    func varintRoundTrip(value: UInt64) throws {
        var buffer = ByteBuffer()
        buffer.writeVarint(value)
        let expectedLength = value == 0 ? 1 : (64 - value.leadingZeroBitCount + 6) / 7
        #expect(buffer.readableBytes == expectedLength)
        #expect(try buffer.readVarint() == value)
        #expect(buffer.readableBytes == 0)
    }

    @Test("overlong varints and varints over 64 bits are refused")
    func varintRejections() {
        var overlong = ByteBuffer(bytes: [0x80, 0x00])
        #expect(throws: WireError.invalidVarint) { try overlong.readVarint() }
        var tooBig = ByteBuffer(bytes: [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x02])
        #expect(throws: WireError.invalidVarint) { try tooBig.readVarint() }
        var eleven = ByteBuffer(bytes: Array(repeating: 0x80, count: 10) + [0x01])
        #expect(throws: WireError.invalidVarint) { try eleven.readVarint() }
        var truncated = ByteBuffer(bytes: [0x80])
        #expect(throws: WireError.truncatedBody) { try truncated.readVarint() }
    }

    @Test("strings: round trip, length cap, invalid UTF-8, length past the end")
    func strings() throws {
        var buffer = ByteBuffer()
        buffer.writeLengthPrefixedString("grüße 👋")
        #expect(try buffer.readLengthPrefixedString("s", maxBytes: 64) == "grüße 👋")

        var long = ByteBuffer()
        long.writeLengthPrefixedString(String(repeating: "a", count: 65))
        #expect(throws: WireError.lengthOverLimit) { try long.readLengthPrefixedString("s", maxBytes: 64) }

        var invalid = ByteBuffer(bytes: [2, 0xC3, 0x28])
        #expect(throws: WireError.invalidUTF8) { try invalid.readLengthPrefixedString("s", maxBytes: 64) }

        var pastEnd = ByteBuffer(bytes: [10, 0x41])
        #expect(throws: WireError.truncatedBody) { try pastEnd.readLengthPrefixedString("s", maxBytes: 64) }
    }

    @Test("a free-text string is cut at a character boundary, never inside one")
    func truncatingString() throws {
        var buffer = ByteBuffer()
        buffer.writeLengthPrefixedString("aé", truncatingToBytes: 2)
        #expect(try buffer.readLengthPrefixedString("s", maxBytes: 2) == "a")
    }

    @Test("byte strings keep every byte value, and empty ones")
    func byteStrings() throws {
        let all = (0...255).map(UInt8.init)
        var buffer = ByteBuffer()
        buffer.writeLengthPrefixedBytes(all)
        buffer.writeLengthPrefixedBytes([UInt8]())
        #expect(try buffer.readLengthPrefixedBytes("b", maxBytes: 256) == all)
        #expect(try buffer.readLengthPrefixedBytes("b", maxBytes: 256) == [])
    }

    @Test("a list count larger than what remains is refused before anything is allocated")
    func countOverRemaining() {
        var buffer = ByteBuffer()
        buffer.writeVarint(1_000)
        buffer.writeBytes([1, 2, 3])
        #expect(throws: WireError.countOverRemaining) {
            try buffer.readCount("items", maxCount: 10_000, minElementBytes: 1)
        }
        var capped = ByteBuffer()
        capped.writeVarint(11)
        capped.writeBytes(Array(repeating: 0, count: 11))
        #expect(throws: WireError.lengthOverLimit) { try capped.readCount("items", maxCount: 10) }
    }

    @Test("a bool is 0 or 1 and nothing else")
    func bools() throws {
        var buffer = ByteBuffer(bytes: [0, 1, 2])
        #expect(try buffer.readBool() == false)
        #expect(try buffer.readBool() == true)
        #expect(throws: WireError.invalidValue) { try buffer.readBool() }
    }

    @Test("trailing bytes after a message are refused")
    func trailingBytes() {
        var body = ErrorBody(message: "m").encoded()
        body.writeInteger(UInt8(0))
        #expect(throws: WireError.trailingBytes) { try ErrorBody(decoding: body) }
        #expect(throws: WireError.trailingBytes) { try Empty(decoding: ByteBuffer(bytes: [1])) }
    }
}
