import Logging
import NIOCore
import NIOPosix
import NIOSSL

/// Submits messages to an SMTP server (``SMTPSettings``): one connection per message, STARTTLS or implicit TLS
/// with the server's certificate checked against its host name, AUTH PLAIN or LOGIN. A transient failure (a 4xx
/// reply, a lost or refused connection, a timeout) is tried again after `retryBackoff`, doubled each time, up to
/// `attemptsMax` tries; a permanent one (5xx, TLS, a missing STARTTLS or AUTH) fails at once. Logs carry the reply
/// codes only: never the message, an address or a credential.
struct SMTPMailer: Mailer {
    let settings: SMTPSettings
    private let tls: NIOSSLContext?
    private let group: any EventLoopGroup
    private let logger: Logger

    /// - Throws: when the TLS settings cannot be loaded (an unreadable trust-roots file).
    init(
        settings: SMTPSettings,
        group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton,
        logger: Logger
    )
        throws
    {
        self.settings = settings
        self.group = group
        self.logger = logger
        guard settings.security != .none else {
            tls = nil
            return
        }
        var configuration = TLSConfiguration.makeClientConfiguration()
        configuration.minimumTLSVersion = .tlsv12
        if let file = settings.trustRootsFile {
            configuration.trustRoots = .certificates(try NIOSSLCertificate.fromPEMFile(file))
        }
        tls = try NIOSSLContext(configuration: configuration)
    }

    func send(_ message: MailMessage) async throws {
        guard let sender = MailAddress.envelope(of: message.sender),
            let recipient = MailAddress.envelope(of: message.recipient)
        else { throw SMTPError.refused("the sender or the recipient is not an address an envelope can carry") }
        let envelope = SMTPConversation.Envelope(sender: sender, recipient: recipient, message: message.rfc5322)
        var backoff = settings.retryBackoff
        for attempt in 1... {
            do {
                try await deliver(envelope)
                return
            } catch let error as SMTPError where error.isTransient && attempt < settings.attemptsMax {
                logger.notice(
                    "SMTP submission failed; trying again",
                    metadata: ["smtp.attempt": "\(attempt)", "error": "\(error)"]
                )
                try await Task.sleep(for: backoff)
                backoff *= 2
            }
        }
    }

    /// One attempt on a new connection.
    private func deliver(_ envelope: SMTPConversation.Envelope) async throws {
        let loop = group.next()
        let outcome = loop.makePromise(of: Void.self)
        let conversation = SMTPConversation(settings: settings, envelope: envelope)
        let timeout = TimeAmount(settings.commandTimeout)
        let host = settings.host
        let tls = self.tls
        let implicitTLS = settings.security == .implicitTLS
        let bootstrap = ClientBootstrap(group: loop)
            .connectTimeout(TimeAmount(settings.connectTimeout))
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    let makeTLSHandler = { () throws -> NIOSSLClientHandler in
                        guard let tls else { throw SMTPError.tls("no TLS settings") }
                        return try NIOSSLClientHandler(context: tls, serverHostname: Self.serverName(host))
                    }
                    if implicitTLS { try channel.pipeline.syncOperations.addHandler(try makeTLSHandler()) }
                    try channel.pipeline.syncOperations.addHandler(
                        SMTPClientHandler(
                            conversation: conversation,
                            outcome: outcome,
                            commandTimeout: timeout,
                            makeTLSHandler: makeTLSHandler
                        )
                    )
                }
            }
        let channel: any Channel
        do {
            channel = try await bootstrap.connect(host: host, port: settings.port).get()
        } catch {
            let failure = SMTPError.connection("cannot connect to \(host):\(settings.port): \(error)")
            outcome.fail(failure)
            throw failure
        }
        do {
            try await outcome.futureResult.get()
        } catch {
            try? await channel.close()
            throw error
        }
    }

    /// The name for SNI and the certificate check; nil for an IP address, which NIOSSL checks against the peer's
    /// address instead.
    private static func serverName(_ host: String) -> String? {
        (try? SocketAddress(ipAddress: host, port: 0)) == nil ? host : nil
    }
}
