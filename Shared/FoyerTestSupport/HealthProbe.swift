public import FoyerRPC
import FoyerServiceKit

/// Asks a running service whether it serves, as `--check-health` does, with the TLS a test chooses: for tests of who
/// a listener lets in.
public enum HealthProbe {
    /// Whether the service at `host:port` answers its health method "serving" to a client proving `secret` over
    /// `tls` (`nil`: plaintext). A refused connection or handshake is `false`.
    public static func serves(
        host: String = "127.0.0.1",
        port: Int,
        service: String,
        secret: ClusterSecret,
        tls: RPCClientTLS?
    ) async -> Bool {
        await ServiceRunner.checkHealth(
            host: host,
            port: port,
            service: service,
            secret: secret,
            tls: tls,
            logger: TestLogging.logger("foyer.test.health-probe")
        )
    }
}
