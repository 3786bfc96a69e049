import NIOCore

/// Reads one side of a ``FaultProxyLink`` and cuts its bytes into whole frames by their length field: from the
/// gateway, after the 8-byte preface; from the service, from the first byte (the server sends no preface).
final class FaultProxyRelay: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer

    enum Direction {
        /// Gateway to service: preface, `HELLO`, then requests, `CANCEL`, `PING`, `GOAWAY`.
        case toService
        /// Service to gateway: `HELLO_ACK`, then answers, `PONG`, `GOAWAY`.
        case toGateway
    }

    /// The preface's length (docs/PROTOCOL.md, 2.2) and a frame header's (section 3).
    static let prefaceLength = 8
    static let headerLength = 16

    private let direction: Direction
    private let link: FaultProxyLink
    private var buffer = ByteBuffer()
    private var prefaceLeft: Int

    init(direction: Direction, link: FaultProxyLink) {
        self.direction = direction
        self.link = link
        self.prefaceLeft = direction == .toService ? Self.prefaceLength : 0
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var bytes = unwrapInboundIn(data)
        if prefaceLeft > 0, let preface = bytes.readSlice(length: min(prefaceLeft, bytes.readableBytes)) {
            prefaceLeft -= preface.readableBytes
            link.passToService(preface)
        }
        buffer.writeBuffer(&bytes)
        while let frame = nextFrame() {
            switch direction {
            case .toService: link.fromGateway(frame)
            case .toGateway: link.fromService(frame)
            }
        }
        if buffer.readerIndex > 64 * 1024 { buffer.discardReadBytes() }
    }

    func channelInactive(context: ChannelHandlerContext) {
        link.close()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        link.close()
    }

    /// The next whole frame, or nil if it is not all in (or its length is refused, which closes the pair).
    private func nextFrame() -> ByteBuffer? {
        guard let length = buffer.getInteger(at: buffer.readerIndex, as: UInt32.self) else { return nil }
        guard length >= Self.headerLength - 4, length <= link.frameLengthMax else {
            buffer.clear()
            link.close()
            return nil
        }
        return buffer.readSlice(length: 4 + Int(length))
    }
}
