public import Foundation
public import FoyerAPI
public import FoyerRPC
import FoyerWire
public import Logging

/// An operator's client of the cleanup service (an internal service: the connection proves the cluster secret).
/// Used by `foyer cleanup status|sweep`.
public final class FoyerCleanupClient: Sendable {
    private let rpc: RPCClient

    /// - Parameters:
    ///   - secret: the cluster's secret (`ClusterSecret(text:)` of the secret file's contents).
    ///   - callTimeout: a sweep of many expired guests takes a while. Default 5 minutes.
    ///   - tls: TLS to cleanup's listener (with a client certificate when it demands one); `nil`: plaintext.
    public init(
        host: String,
        port: Int,
        secret: ClusterSecret,
        callTimeout: Duration = .seconds(300),
        tls: RPCClientTLS? = nil,
        logger: Logger = Logger(label: "foyer.client.cleanup")
    ) {
        rpc = operatorClient(
            service: "cleanup",
            host: host,
            port: port,
            secret: secret,
            callTimeout: callTimeout,
            tls: tls,
            logger: logger
        )
    }

    /// Reads a cluster secret: `FOYER_CLUSTER_SECRET` (the text itself) if set, else the file at `path`.
    public static func loadSecret(
        path: String,
        environment: [String: String] = ProcessInfo.processInfo.environment
    )
        throws(FoyerError) -> ClusterSecret
    {
        let text: String
        if let inline = environment["FOYER_CLUSTER_SECRET"], !inline.isEmpty {
            text = inline
        } else {
            guard let contents = try? String(contentsOfFile: path, encoding: .utf8) else {
                throw .invalidInput("cannot read the cluster secret file \(path)")
            }
            text = contents
        }
        do throws(RPCError) {
            return try ClusterSecret(text: text)
        } catch {
            throw .invalidInput("the cluster secret is not valid: \(error.message)")
        }
    }

    /// Whether a sweep runs now, and the last one's report.
    public func status() async throws(FoyerError) -> CleanupStatusResponse {
        try await call(CleanupMethods.status, Empty())
    }

    /// Sweeps now; with `dryRun`, counts what a sweep would delete and changes nothing.
    public func sweep(dryRun: Bool) async throws(FoyerError) -> SweepReport {
        try await call(CleanupMethods.sweep, SweepRequest(dryRun: dryRun))
    }

    /// The newest deletion records (pseudonymous ids, reasons, times).
    public func deletions(limit: Int = 100) async throws(FoyerError) -> [DeletionRecords.Record] {
        guard (1...1000).contains(limit) else { throw .invalidInput("the limit is 1 to 1000") }
        return try await call(CleanupMethods.listDeletions, ListDeletionsRequest(limit: UInt64(limit))).records
    }

    /// Closes the connection.
    public func shutdown() async {
        await rpc.shutdown()
    }

    private func call<Request, Response>(
        _ method: RPCMethod<Request, Response>,
        _ request: Request
    )
        async throws(FoyerError) -> Response
    {
        do {
            return try await rpc.call(method, request)
        } catch {
            throw FoyerError(error)
        }
    }
}

/// One connection to an internal service for an operator's command, proving the cluster secret.
func operatorClient(
    service: String,
    host: String,
    port: Int,
    secret: ClusterSecret,
    callTimeout: Duration,
    tls: RPCClientTLS?,
    logger: Logger
) -> RPCClient {
    var configuration = RPCClientConfiguration(
        host: host,
        port: port,
        serviceName: service,
        peerName: "foyer-cli",
        clusterSecret: secret
    )
    configuration.connectionsMax = 1
    configuration.tls = tls
    configuration.defaultCallTimeout = .init(callTimeout)
    return RPCClient(configuration: configuration, logger: logger)
}
