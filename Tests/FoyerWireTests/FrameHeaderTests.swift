import FoyerWire
import NIOCore
import Testing

@Suite("Frame header")
struct FrameHeaderTests {
    @Test("the header is 16 bytes and its fields sit where the protocol says")
    func headerLayoutIsPinned() {
        var buffer = ByteBuffer()
        let header = FrameHeader(type: .request, flags: .idempotent, code: 0x0102, id: 0x0304_0506, aux: 0x0708_090A)
        header.encode(bodyLength: 3, into: &buffer)
        #expect(FrameHeader.byteCount == 16)
        #expect(buffer.readableBytes == FrameHeader.byteCount)
        #expect(
            Array(buffer.readableBytesView) == [
                0, 0, 0, 15,  // len = 12 + 3
                0x01,  // type REQUEST
                0x08,  // flags IDEMPOTENT (bit 3)
                0x01, 0x02,  // code
                0x03, 0x04, 0x05, 0x06,  // id
                0x07, 0x08, 0x09, 0x0A,  // aux
            ]
        )
    }

    @Test("frame type values match the protocol and nothing else is a type")
    func frameTypeValues() {
        #expect(FrameType.request.rawValue == 0x01)
        #expect(FrameType.response.rawValue == 0x02)
        #expect(FrameType.error.rawValue == 0x03)
        #expect(FrameType.cancel.rawValue == 0x04)
        #expect(FrameType.hello.rawValue == 0x10)
        #expect(FrameType.helloAck.rawValue == 0x11)
        #expect(FrameType.ping.rawValue == 0x12)
        #expect(FrameType.pong.rawValue == 0x13)
        #expect(FrameType.goAway.rawValue == 0x14)
        let defined = (0...255).filter { FrameType(rawValue: UInt8($0)) != nil }
        #expect(defined == [0x01, 0x02, 0x03, 0x04, 0x10, 0x11, 0x12, 0x13, 0x14])
    }

    @Test("the preface is FOYR, major 1, minor 1; a minor-0 preface is read as well")
    func prefaceBytes() throws {
        var buffer = ByteBuffer()
        Preface.current.encode(into: &buffer)
        #expect(Array(buffer.readableBytesView) == [0x46, 0x4F, 0x59, 0x52, 0, 1, 0, 1])
        #expect(try Preface.read(from: &buffer) == Preface(major: 1, minor: 1))
        var old = ByteBuffer(bytes: [0x46, 0x4F, 0x59, 0x52, 0, 1, 0, 0])
        #expect(try Preface.read(from: &old) == Preface(major: 1, minor: 0))
    }

    @Test("status classes decide retries")
    func statusClasses() {
        #expect(RPCStatus.unavailable.allowsRetry(idempotent: false))
        #expect(RPCStatus.overloaded.allowsRetry(idempotent: false))
        #expect(!RPCStatus.internal.allowsRetry(idempotent: false))
        #expect(RPCStatus.internal.allowsRetry(idempotent: true))
        #expect(!RPCStatus.invalidArgument.allowsRetry(idempotent: true))
        #expect(RPCStatus(rawValue: 0x3105).retryClass == .rejected)
        // A status of an unknown class is treated as outcome unknown.
        #expect(RPCStatus(rawValue: 0x7001).retryClass == .outcomeUnknown)
        #expect(RPCStatus(rawValue: 0x0000).retryClass == .outcomeUnknown)
    }
}
