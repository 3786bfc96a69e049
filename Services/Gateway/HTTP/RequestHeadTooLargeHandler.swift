import FoyerJSON
import Hummingbird
import NIOCore
import NIOHTTP1
import NIOHTTPTypes

/// Answers a request head past the decoder's caps (`headerByteCountMax`, `headerFieldCountMax`) with a 431
/// `request-header-fields-too-large` problem, then closes the connection. NIO's decoder reports the oversized head as
/// `HTTPParserError.headerOverflow` down the pipeline, where Hummingbird would answer any parser error with an empty
/// 400. Other errors, and an overflow while a response is still being written (a pipelined request), go on as
/// before.
final class RequestHeadTooLargeHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private let headerByteCountMax: Int
    private let headerFieldCountMax: Int
    /// Requests whose head arrived and whose response has not ended.
    private var requestsOpen = 0

    init(headerByteCountMax: Int, headerFieldCountMax: Int) {
        self.headerByteCountMax = headerByteCountMax
        self.headerFieldCountMax = headerFieldCountMax
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if case .head = unwrapInboundIn(data) { requestsOpen += 1 }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = unwrapOutboundIn(data) { requestsOpen = max(0, requestsOpen - 1) }
        context.write(data, promise: promise)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard let parserError = error as? HTTPParserError, parserError == .headerOverflow, requestsOpen == 0 else {
            context.fireErrorCaught(error)
            return
        }
        let problem = HTTPProblem(
            status: 431,
            name: "request-header-fields-too-large",
            detail:
                "the request head is larger than \(headerByteCountMax) bytes or has more than \(headerFieldCountMax) fields",
            fields: [
                "headerLimit": JSONValue(UInt64(headerByteCountMax)),
                "headerFieldLimit": JSONValue(UInt64(headerFieldCountMax)),
            ]
        )
        let body = ByteBuffer(bytes: problem.json.bytes)
        var fields = HTTPFields()
        fields[.contentType] = "application/problem+json"
        fields[.contentLength] = String(body.readableBytes)
        fields[.connection] = "close"
        context.write(
            wrapOutboundOut(.head(HTTPResponse(status: .init(code: 431), headerFields: fields))),
            promise: nil
        )
        context.write(wrapOutboundOut(.body(body)), promise: nil)
        let channel = context.channel
        context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in
            channel.close(promise: nil)
        }
    }
}
