public import NIOCore

/// One frame: a header and its body. The body is kept as it travels; compression is applied and removed by
/// `BodyCompression`, outside the framing layer.
public struct Frame: Hashable, Sendable {
    public var header: FrameHeader
    public var body: ByteBuffer

    public init(header: FrameHeader, body: ByteBuffer = ByteBuffer()) {
        self.header = header
        self.body = body
    }

    public var type: FrameType { header.type }
    public var id: UInt32 { header.id }
}

extension Frame {
    public static func request(
        id: UInt32,
        method: UInt16,
        deadlineMicroseconds: UInt32 = 0,
        idempotent: Bool = false,
        body: ByteBuffer
    ) -> Frame {
        Frame(
            header: FrameHeader(
                type: .request,
                flags: idempotent ? .idempotent : [],
                code: method,
                id: id,
                aux: deadlineMicroseconds
            ),
            body: body
        )
    }

    public static func response(id: UInt32, body: ByteBuffer) -> Frame {
        Frame(header: FrameHeader(type: .response, id: id), body: body)
    }

    public static func error(
        id: UInt32,
        status: RPCStatus,
        retryAfterMilliseconds: UInt32 = 0,
        body: ByteBuffer
    )
        -> Frame
    {
        Frame(header: FrameHeader(type: .error, code: status.rawValue, id: id, aux: retryAfterMilliseconds), body: body)
    }

    public static func cancel(id: UInt32) -> Frame {
        Frame(header: FrameHeader(type: .cancel, id: id))
    }

    public static func ping(id: UInt32) -> Frame {
        Frame(header: FrameHeader(type: .ping, id: id))
    }

    public static func pong(id: UInt32) -> Frame {
        Frame(header: FrameHeader(type: .pong, id: id))
    }

    public static func goAway(reason: GoAwayReason, graceMilliseconds: UInt32 = 0, body: ByteBuffer) -> Frame {
        Frame(header: FrameHeader(type: .goAway, code: reason.rawValue, aux: graceMilliseconds), body: body)
    }
}
