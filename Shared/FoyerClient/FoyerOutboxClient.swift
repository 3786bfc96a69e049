public import FoyerAPI
public import FoyerRPC
import FoyerWire
public import Logging

/// An operator's client of identity's outbox: the email links identity keeps instead of sending them when it runs
/// in local mode with the outbox mailer. It connects to identity's internal listener directly and proves the
/// cluster secret; no client-facing method reads the outbox (whoever reads it can sign in as anyone whose link is
/// in it). Used by `foyer outbox` and by tests.
public final class FoyerOutboxClient: Sendable {
    private let rpc: RPCClient

    /// - Parameters:
    ///   - host, port: identity's listener (default port 7401).
    ///   - secret: the cluster's secret (see ``FoyerCleanupClient/loadSecret(path:environment:)``).
    ///   - tls: TLS to identity's listener (with a client certificate when it demands one); `nil`: plaintext.
    public init(
        host: String,
        port: Int,
        secret: ClusterSecret,
        callTimeout: Duration = .seconds(15),
        tls: RPCClientTLS? = nil,
        logger: Logger = Logger(label: "foyer.client.outbox")
    ) {
        rpc = operatorClient(
            service: "identity",
            host: host,
            port: port,
            secret: secret,
            callTimeout: callTimeout,
            tls: tls,
            logger: logger
        )
    }

    /// Reads the outbox once: connects, lists the messages, closes.
    public static func messages(
        host: String,
        port: Int,
        secret: ClusterSecret,
        recipient: String? = nil,
        limit: Int = 20,
        tls: RPCClientTLS? = nil,
        logger: Logger = Logger(label: "foyer.client.outbox")
    ) async throws(FoyerError) -> [OutboxMessage] {
        let client = FoyerOutboxClient(host: host, port: port, secret: secret, tls: tls, logger: logger)
        let result: Result<[OutboxMessage], FoyerError>
        do {
            result = .success(try await client.messages(recipient: recipient, limit: limit))
        } catch {
            result = .failure(error)
        }
        await client.shutdown()
        return try result.get()
    }

    /// The newest messages first, optionally only those to `recipient` (`outbox-disabled` when identity runs
    /// with another mailer).
    public func messages(recipient: String? = nil, limit: Int = 20) async throws(FoyerError) -> [OutboxMessage] {
        guard (1...1000).contains(limit) else { throw .invalidInput("the outbox limit is 1 to 1000") }
        do {
            return try await rpc.call(
                IdentityMethods.listOutbox,
                ListOutboxRequest(recipient: recipient, limit: UInt32(limit))
            ).messages
        } catch {
            throw FoyerError(error)
        }
    }

    /// Closes the connection.
    public func shutdown() async {
        await rpc.shutdown()
    }
}
