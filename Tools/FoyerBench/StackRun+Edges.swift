import Foundation
import FoyerClient
import NIOCore

extension StackRun {
    /// The two gateway edges through the same client library in the same run: guest sign-ins and 256-byte
    /// document puts (one guest's, each with its idempotency key) through `FoyerClient` over the binary protocol
    /// and over the HTTP edge (JSON, HTTP/1.1, URLSession). The binary sign-in row is `signIns()`'s.
    func edgeComparison() async throws -> [ThroughputRow] {
        let binary = edgeClient(http: false)
        let http = edgeClient(http: true)
        do {
            let signIns = try await Drive.run(count: sizes.signIns, concurrency: sizes.concurrency) { _ in
                try await http.signInAsGuest()
            }
            var rows = [
                ThroughputRow(
                    name: "guest sign-in",
                    path: "gateway HTTP",
                    concurrency: sizes.concurrency,
                    drive: signIns
                )
            ]
            for (path, client) in [("gateway", binary), ("gateway HTTP", http)] {
                try await client.signInAsGuest()
                let value = ByteBuffer(repeating: 0x61, count: 256)
                let puts = try await Drive.run(count: sizes.serviceCalls, concurrency: sizes.concurrency) { index in
                    try await client.put("bench", "doc-\(index)", value: value)
                }
                rows.append(
                    ThroughputRow(name: "document put (256 B)", path: path, concurrency: sizes.concurrency, drive: puts)
                )
            }
            rows += try httpFloor(token: await http.session?.accessToken)
            await binary.shutdown()
            await http.shutdown()
            return rows
        } catch {
            await binary.shutdown()
            await http.shutdown()
            throw error
        }
    }

    /// The HTTP listener's floor beside the rows above (`WrkFloor`): `/healthz`, and one of the puts' documents read
    /// with the HTTP client's token; no rows when `wrk` is missing.
    private func httpFloor(token: String?) throws -> [ThroughputRow] {
        var targets = [("healthz (wrk)", "/healthz", [String: String]())]
        if let token {
            targets.append(("document get (wrk)", "/v1/documents/bench/doc-0", ["Authorization": "Bearer \(token)"]))
        }
        let seconds = sizes.serviceCalls >= 5_000 ? 5 : 1
        return try targets.compactMap { name, path, headers in
            try WrkFloor.run(
                url: "http://127.0.0.1:\(stack.httpPort)\(path)",
                headers: headers,
                connections: sizes.concurrency,
                seconds: seconds
            ).map { floor in
                ThroughputRow(
                    name: name,
                    path: "gateway HTTP",
                    concurrency: sizes.concurrency,
                    perSecond: floor.perSecond,
                    p50Milliseconds: floor.p50Milliseconds,
                    p99Milliseconds: floor.p99Milliseconds,
                    failed: floor.errors
                )
            }
        }
    }

    /// A client of the gateway's binary listener (two connections, as the other gateway rows), or of its HTTP edge
    /// with a connection per call in flight (HTTP/1.1 answers one request at a time per connection).
    private func edgeClient(http: Bool) -> FoyerClient {
        var configuration = FoyerClientConfiguration(host: "127.0.0.1", port: port(.gateway))
        if http {
            configuration.httpBaseURL = URL(string: "http://127.0.0.1:\(stack.httpPort)")
            configuration.connectionsMax = sizes.concurrency
        } else {
            configuration.connectionsMax = 2
        }
        configuration.peerName = "foyer-bench"
        return FoyerClient(configuration: configuration, logger: logger)
    }
}
