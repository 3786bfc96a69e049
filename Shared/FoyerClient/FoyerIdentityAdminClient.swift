public import FoyerAPI
public import FoyerRPC
import FoyerWire
public import Logging

/// An operator's client of identity's internal listener for administration (`foyer admin`): it connects to identity
/// directly and proves the cluster secret, as ``FoyerOutboxClient`` does; no client-facing method reaches these
/// calls.
public final class FoyerIdentityAdminClient: Sendable {
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
        logger: Logger = Logger(label: "foyer.client.identity-admin")
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

    /// Rotates the access-token signing key (`identity.rotateSigningKey`): new tokens are signed with a new key;
    /// the old one stays published until the tokens it signed have expired. Returns the new key's id (`kid`).
    public func rotateSigningKey() async throws(FoyerError) -> String {
        do {
            return try await rpc.call(IdentityMethods.rotateSigningKey, Empty()).keyID
        } catch {
            throw FoyerError(error)
        }
    }

    /// Makes an admin key (`identity.createAdminKey`) for the gateway's admin API. The answer's `key` is the only copy
    /// of the key: identity keeps its SHA-256.
    ///
    /// - Parameters:
    ///   - name: a label, 1–64 characters of `A–Z a–z 0–9 . _ @ -` (not unique).
    ///   - createdBy: the key id of the admin who asks, or "cluster-secret" (an operator with the cluster secret).
    public func createAdminKey(
        name: String,
        createdBy: String = CreateAdminKeyRequest.createdByClusterSecret
    ) async throws(FoyerError) -> AdminKeyCreated {
        do {
            return try await rpc.call(
                IdentityMethods.createAdminKey,
                CreateAdminKeyRequest(name: name, createdBy: createdBy)
            )
        } catch {
            throw FoyerError(error)
        }
    }

    /// Closes the connection.
    public func shutdown() async {
        await rpc.shutdown()
    }
}
