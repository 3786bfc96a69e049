import NIOCore
import NIOSSL
import NIOTLS

/// Carries out an ``SMTPConversation`` on one connection: parses replies, writes what the conversation says,
/// puts TLS in front after STARTTLS, and reports the outcome once on `outcome` (success as soon as the server
/// accepted the message). Every wait for the server is bounded by `commandTimeout`. Writes nothing to logs: the
/// commands carry addresses and credentials.
final class SMTPClientHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private var conversation: SMTPConversation
    private var parser = SMTPReplyParser()
    private let outcome: EventLoopPromise<Void>
    private let commandTimeout: TimeAmount
    /// Makes the TLS handler STARTTLS puts in front.
    private let makeTLSHandler: () throws -> NIOSSLClientHandler
    private var timer: Scheduled<Void>?
    private var awaitingTLS = false
    private var reported = false
    private var closed = false

    init(
        conversation: SMTPConversation,
        outcome: EventLoopPromise<Void>,
        commandTimeout: TimeAmount,
        makeTLSHandler: @escaping () throws -> NIOSSLClientHandler
    ) {
        self.conversation = conversation
        self.outcome = outcome
        self.commandTimeout = commandTimeout
        self.makeTLSHandler = makeTLSHandler
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { armTimer(context) }
    }

    func channelActive(context: ChannelHandlerContext) {
        armTimer(context)
        context.fireChannelActive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        parser.append(unwrapInboundIn(data))
        do {
            while !closed, !awaitingTLS, let reply = try parser.next() {
                perform(conversation.receive(reply), context)
            }
        } catch {
            finish(.failure(error), context)
        }
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if awaitingTLS, case .handshakeCompleted = event as? TLSUserEvent {
            awaitingTLS = false
            perform(conversation.tlsEstablished(), context)
        }
        context.fireUserInboundEventTriggered(event)
    }

    func channelInactive(context: ChannelHandlerContext) {
        timer?.cancel()
        timer = nil
        report(.failure(SMTPError.connection("the server closed the connection during \(conversation.stage)")))
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        let failure: SMTPError
        switch error {
        case let error as SMTPError: failure = error
        case is NIOSSLError, is NIOSSLExtraError, is BoringSSLError: failure = .tls("\(error)")
        default: failure = .connection("\(error)")
        }
        finish(.failure(failure), context)
    }

    private func perform(_ action: SMTPConversation.Action, _ context: ChannelHandlerContext) {
        switch action {
        case .send(let line):
            write(Array(line.utf8) + [UInt8(ascii: "\r"), UInt8(ascii: "\n")], context)
        case .sendMessage(let bytes):
            write(bytes, context)
        case .startTLS:
            startTLS(context)
        case .delivered(let then):
            report(.success(()))
            write(Array(then.utf8) + [UInt8(ascii: "\r"), UInt8(ascii: "\n")], context)
        case .fail(let error):
            finish(.failure(error), context)
        case .close:
            finish(.success(()), context)
        }
    }

    private func write(_ bytes: [UInt8], _ context: ChannelHandlerContext) {
        armTimer(context)
        context.writeAndFlush(wrapOutboundOut(context.channel.allocator.buffer(bytes: bytes)), promise: nil)
    }

    /// Bytes the server sent after its reply to STARTTLS would be taken as if they came over TLS (a known
    /// injection), so they fail the submission.
    private func startTLS(_ context: ChannelHandlerContext) {
        guard !parser.hasBufferedBytes else {
            finish(.failure(SMTPError.protocolViolation("the server sent data after its reply to STARTTLS")), context)
            return
        }
        do {
            awaitingTLS = true
            armTimer(context)
            try context.pipeline.syncOperations.addHandler(try makeTLSHandler(), position: .first)
        } catch {
            finish(.failure(SMTPError.tls("\(error)")), context)
        }
    }

    private func armTimer(_ context: ChannelHandlerContext) {
        timer?.cancel()
        timer = context.eventLoop.assumeIsolated().scheduleTask(in: commandTimeout) { [self] in
            self.timer = nil
            let failure: Result<Void, any Error> =
                conversation.isDelivered ? .success(()) : .failure(SMTPError.timeout(conversation.stage))
            finish(failure, context)
        }
    }

    /// Reports (if not yet done) and closes.
    private func finish(_ result: Result<Void, any Error>, _ context: ChannelHandlerContext) {
        guard !closed else { return }
        closed = true
        timer?.cancel()
        timer = nil
        report(result)
        context.close(promise: nil)
    }

    private func report(_ result: Result<Void, any Error>) {
        guard !reported else { return }
        reported = true
        outcome.completeWith(result)
    }
}
