import FoyerAPI
import FoyerRPC
import FoyerWire
import Logging
import NIOCore

/// Load drivers for `make bench`: run against a user-data server listening on `host:port`.
enum UserDataLoad {
    typealias Result = LoadRunResult

    /// What one timed merge did.
    struct MergeTiming: Sendable, CustomStringConvertible {
        var guestDocuments: Int
        var report: MergeReport
        var elapsed: Duration

        var description: String {
            "merged \(guestDocuments) documents (\(report.moved) moved, \(report.conflicts) conflicts) in \(elapsed)"
        }
    }

    /// Times `operations` puts of `valueBytes`-byte values, `concurrency` in flight, each to a new key of one of
    /// `concurrency` fresh users.
    static func puts(
        host: String = "127.0.0.1",
        port: Int,
        clusterSecret: ClusterSecret?,
        operations: Int,
        concurrency: Int,
        valueBytes: Int = 256,
        logger: Logger
    ) async throws -> Result {
        precondition(operations >= 0 && concurrency >= 1, "operations >= 0 and concurrency >= 1")
        let client = makeClient(host: host, port: port, clusterSecret: clusterSecret, logger: logger)
        let run = String(UInt64.random(in: 0...UInt64.max), radix: 36)
        let value = ByteBuffer(bytes: (0..<valueBytes).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        let clock = ContinuousClock()
        let start = clock.now
        let (succeeded, failed) = await withTaskGroup(of: (Int, Int).self) { group in
            for worker in 0..<concurrency {
                let share = operations / concurrency + (worker < operations % concurrency ? 1 : 0)
                group.addTask {
                    var ok = 0
                    for index in 0..<share {
                        let request = PutDocumentRequest(
                            uid: "load-\(run)-\(worker)",
                            collection: "bench",
                            key: "doc-\(index)",
                            value: value
                        )
                        if (try? await client.call(UserDataMethods.put, request)) != nil { ok += 1 }
                    }
                    return (ok, share - ok)
                }
            }
            return await group.reduce(into: (0, 0)) { $0 = ($0.0 + $1.0, $0.1 + $1.1) }
        }
        let elapsed = clock.now - start
        await client.shutdown()
        return Result(succeeded: succeeded, failed: failed, elapsed: elapsed)
    }

    /// Fills a fresh guest with `guestDocuments` documents (and a fresh account with `conflictingDocuments` of the
    /// same keys), then times one merge of the guest into the account under `policy`.
    static func merge(
        host: String = "127.0.0.1",
        port: Int,
        clusterSecret: ClusterSecret?,
        guestDocuments: Int = 1000,
        conflictingDocuments: Int = 0,
        policy: MergePolicy = .keepNewest,
        valueBytes: Int = 256,
        logger: Logger
    ) async throws -> MergeTiming {
        let client = makeClient(host: host, port: port, clusterSecret: clusterSecret, logger: logger)
        do {
            let run = String(UInt64.random(in: 0...UInt64.max), radix: 36)
            let guest = "load-\(run)-guest"
            let account = "load-\(run)-account"
            let value = ByteBuffer(bytes: (0..<valueBytes).map { UInt8(truncatingIfNeeded: $0 &* 17) })
            try await fill(client, uid: guest, count: guestDocuments, value: value)
            try await fill(client, uid: account, count: min(conflictingDocuments, guestDocuments), value: value)
            let clock = ContinuousClock()
            let start = clock.now
            let report = try await client.call(
                UserDataMethods.merge,
                MergeDocumentsRequest(fromUID: guest, toUID: account, op: "load-\(run)", policy: policy),
                options: CallOptions(timeout: .seconds(300))
            )
            let elapsed = clock.now - start
            await client.shutdown()
            return MergeTiming(guestDocuments: guestDocuments, report: report, elapsed: elapsed)
        } catch {
            await client.shutdown()
            throw error
        }
    }

    private static func fill(_ client: RPCClient, uid: String, count: Int, value: ByteBuffer) async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            let workers = 16
            for worker in 0..<workers {
                group.addTask {
                    for index in stride(from: worker, to: count, by: workers) {
                        let request = PutDocumentRequest(
                            uid: uid,
                            collection: "bench",
                            key: "doc-\(index)",
                            value: value
                        )
                        _ = try await client.call(UserDataMethods.put, request)
                    }
                }
            }
            try await group.waitForAll()
        }
    }

    private static func makeClient(host: String, port: Int, clusterSecret: ClusterSecret?, logger: Logger) -> RPCClient
    {
        RPCClient(
            configuration: RPCClientConfiguration(
                host: host,
                port: port,
                serviceName: "user-data",
                peerName: "user-data-load",
                clusterSecret: clusterSecret
            ),
            logger: logger
        )
    }
}
