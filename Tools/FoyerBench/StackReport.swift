import Foundation

/// The end-to-end rows of one engine, as printed and written to JSON.
struct StackReport: Codable {
    var engine: BenchEngine
    var sizes: StackSizes
    var throughput: [ThroughputRow] = []
    var operations: [OperationRow] = []
    var cleanup: [CleanupRow] = []
    var peakMemory: [MemoryRow] = []
    /// The calls the gateway made to the services for one operation of each kind.
    var calls: [CallCountRow] = []
    /// PostgreSQL alone on the same transactions (``PgbenchAnchor``); empty on SQLite.
    var anchors: [PgbenchAnchor] = []
}

/// The gateway's calls to the services for one client operation, from its own `foyer_rpc_client_calls_total`.
struct CallCountRow: Codable {
    var name: String
    var calls: Double
    /// By "upstream/method".
    var byMethod: [String: Double]

    init(name: String, byMethod: [String: Double]) {
        self.name = name
        self.calls = byMethod.values.reduce(0, +)
        self.byMethod = byMethod
    }
}

struct ThroughputRow: Codable {
    var name: String
    /// Where the calls went: `gateway`, or the service called straight.
    var path: String
    var concurrency: Int
    var succeeded: Int
    var failed: Int
    var perSecond: Double
    var p50Milliseconds: Double?
    var p99Milliseconds: Double?

    init(name: String, path: String, concurrency: Int, drive: Drive.Outcome) {
        self.name = name
        self.path = path
        self.concurrency = concurrency
        self.succeeded = Int(drive.latencies.count)
        self.failed = drive.failures.values.reduce(0, +)
        self.perSecond = drive.seconds > 0 ? Double(succeeded) / drive.seconds : 0
        self.p50Milliseconds = drive.latencies.microseconds(atPercentile: 50) / 1000
        self.p99Milliseconds = drive.latencies.microseconds(atPercentile: 99) / 1000
    }

    /// A row measured by another client (`wrk`), which reports a rate rather than each call.
    init(
        name: String,
        path: String,
        concurrency: Int,
        perSecond: Double,
        p50Milliseconds: Double?,
        p99Milliseconds: Double?,
        failed: Int
    ) {
        self.name = name
        self.path = path
        self.concurrency = concurrency
        self.succeeded = 0
        self.failed = failed
        self.perSecond = perSecond
        self.p50Milliseconds = p50Milliseconds
        self.p99Milliseconds = p99Milliseconds
    }

    init(name: String, path: String, concurrency: Int, succeeded: Int, failed: Int, elapsed: Duration) {
        self.name = name
        self.path = path
        self.concurrency = concurrency
        self.succeeded = succeeded
        self.failed = failed
        self.perSecond = elapsed.seconds > 0 ? Double(succeeded) / elapsed.seconds : 0
    }
}

struct OperationRow: Codable {
    var name: String
    var documents: Int
    var milliseconds: Double
    var comparison: String?
    var comparisonMilliseconds: Double?
}

struct CleanupRow: Codable {
    var guests: Int
    /// Time to seed the guests into identity's and guest-quota's databases (set-up, reported for scale).
    var seedSeconds: Double
    var sweepSeconds: Double
    var sweeps: Int
    var guestsPerSecond: Double

    init(guests: Int, seedSeconds: Double, sweepSeconds: Double, sweeps: Int) {
        self.guests = guests
        self.seedSeconds = seedSeconds
        self.sweepSeconds = sweepSeconds
        self.sweeps = sweeps
        self.guestsPerSecond = sweepSeconds > 0 ? Double(guests) / sweepSeconds : 0
    }
}

struct MemoryRow: Codable {
    var service: String
    var peakMiB: Double
}

extension Duration {
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
    var milliseconds: Double { seconds * 1000 }
}
