public import FoyerRPC
import NIOCore
import NIOPosix
import NIOSSL

/// The certificate a TLS listener serves to a new connection, for tests that check which certificate is in use (a
/// reload on SIGHUP).
public enum ServedCertificate {
    /// What an HTTPS listener served to one connection: its leaf certificate's serial number and the status line of
    /// its answer.
    public struct HTTPSAnswer: Sendable {
        public let serialNumber: [UInt8]
        /// The answer's first line (`HTTP/1.1 200 OK`); empty when the listener closed the connection without one.
        public let statusLine: String
    }

    /// The serial number of the leaf certificate `host:port` serves to a new connection made with `tls` (its client
    /// certificate is presented if the listener asks). The certificate is read, not verified: this is a probe of what
    /// the listener serves, not a client. The connection is closed once the certificate has arrived.
    /// - Throws: when the connection fails before the listener sends its certificate.
    public static func serialNumber(host: String, port: Int, tls: RPCClientTLS) async throws -> [UInt8] {
        try await fetch(host: host, port: port, tls: tls, request: nil).leaf.serialNumber
    }

    /// The serial number of the leaf certificate an HTTPS listener serves to a new connection made with `tls`, and
    /// its answer to `GET path` over HTTP/1.1 on that connection (no ALPN is offered). The certificate is read, not
    /// verified, as by ``serialNumber(host:port:tls:)``; the answer is read until the listener closes the connection
    /// (the request asks it to), at most 64 KiB of it.
    /// - Throws: when the connection fails before the listener sends its certificate.
    public static func https(host: String, port: Int, path: String, tls: RPCClientTLS) async throws -> HTTPSAnswer {
        let request = "GET \(path) HTTP/1.1\r\nHost: \(host):\(port)\r\nConnection: close\r\n\r\n"
        let (leaf, answer) = try await fetch(host: host, port: port, tls: tls, request: request)
        let statusLine = answer.split(separator: "\r\n", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        return HTTPSAnswer(serialNumber: leaf.serialNumber, statusLine: String(statusLine))
    }

    /// The serial number of the first certificate in a PEM file.
    /// - Throws: when the file cannot be read or holds no certificate.
    public static func serialNumber(ofPEMFile path: String) throws -> [UInt8] {
        guard let first = try NIOSSLCertificate.fromPEMFile(path).first else {
            throw DevCertificatesError(message: "no certificate in \(path)")
        }
        return first.serialNumber
    }

    /// Connects, reads the leaf the listener serves; with a `request`, sends it and reads the answer until the
    /// listener closes, else closes at once (the answer is then empty).
    private static func fetch(
        host: String,
        port: Int,
        tls: RPCClientTLS,
        request: String?
    ) async throws -> (leaf: NIOSSLCertificate, answer: String) {
        let context = try tls.makeContext()
        let group = MultiThreadedEventLoopGroup.singleton
        let served = group.next().makePromise(of: NIOSSLCertificate.self)
        let answered = group.next().makePromise(of: String.self)
        let bootstrap = ClientBootstrap(group: group)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    // The callback replaces verification: the probe only reads the leaf the listener sends.
                    let handler = try NIOSSLClientHandler(
                        context: context,
                        serverHostname: nil,
                        customVerificationCallback: { chain, verified in
                            if let leaf = chain.first { served.succeed(leaf) }
                            verified.succeed(.certificateVerified)
                        }
                    )
                    try channel.pipeline.syncOperations.addHandler(handler)
                    try channel.pipeline.syncOperations.addHandler(AnswerCollector(answered: answered))
                }
            }
        let channel: any Channel
        do {
            channel = try await bootstrap.connect(host: host, port: port).get()
        } catch {
            served.fail(error)
            answered.fail(error)
            throw error
        }
        channel.closeFuture.whenComplete { _ in served.fail(ChannelError.eof) }
        defer { channel.close(promise: nil) }
        let leaf = try await served.futureResult.get()
        guard let request else { return (leaf, "") }
        try await channel.writeAndFlush(ByteBuffer(string: request)).get()
        return (leaf, try await answered.futureResult.get())
    }
}

/// Collects what the listener sends after the handshake (up to 64 KiB) and hands it over when the connection closes.
private final class AnswerCollector: ChannelInboundHandler, @unchecked Sendable {  // used on its event loop only
    typealias InboundIn = ByteBuffer

    private static let byteCountMax = 64 * 1024
    private var received = ByteBuffer()
    private var answered: EventLoopPromise<String>?

    init(answered: EventLoopPromise<String>) {
        self.answered = answered
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var bytes = unwrapInboundIn(data)
        if received.readableBytes < Self.byteCountMax {
            received.writeBuffer(&bytes)
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        finish()
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        finish()
    }

    /// Hands over what arrived, once.
    private func finish() {
        answered?.succeed(String(buffer: received))
        answered = nil
    }
}
