import Foundation
import FoyerBenchKit

/// The performance targets Foyer holds itself to, each checked against this run's rows: what was measured, per
/// engine, and whether it met the target. A target missed is printed as missed (with the numbers), never left out;
/// a target whose rows did not run (the 100,000-guest cleanup needs `--full`) says so.
struct BenchTarget: Codable {
    var name: String
    var goal: String
    /// Per engine (`sqlite`, `postgres`), or `any` for rows that do not touch a database.
    var results: [String: Result]

    struct Result: Codable {
        var measured: String
        var met: Bool
    }
}

extension BenchReport {
    /// Every target, judged on this run.
    func judgedTargets() -> [BenchTarget] {
        var targets: [BenchTarget] = []
        func perEngine(
            _ name: String,
            _ goal: String,
            _ judge: (StackReport) -> BenchTarget.Result?
        ) {
            var results: [String: BenchTarget.Result] = [:]
            for stack in stacks {
                results[stack.engine.rawValue] = judge(stack)
            }
            targets.append(BenchTarget(name: name, goal: goal, results: results))
        }
        func throughput(_ stack: StackReport, _ name: String, _ path: String) -> ThroughputRow? {
            stack.throughput.first { $0.name == name && $0.path == path }
        }
        func atLeast(_ value: Double?, _ floor: Double, _ format: String) -> BenchTarget.Result? {
            value.map { .init(measured: String(format: format, $0), met: $0 >= floor) }
        }
        func atMost(_ value: Double?, _ ceiling: Double, _ format: String) -> BenchTarget.Result? {
            value.map { .init(measured: String(format: format, $0), met: $0 <= ceiling) }
        }

        perEngine("guest sign-ins via the gateway", "≥ 5,000/s") {
            atLeast(throughput($0, "guest sign-in", "gateway")?.perSecond, 5_000, "%.0f/s")
        }
        perEngine("  their p99", "≤ 50 ms") {
            atMost(throughput($0, "guest sign-in", "gateway")?.p99Milliseconds, 50, "%.1f ms")
        }
        perEngine("quota consumes", "≥ 10,000/s") {
            atLeast(throughput($0, "quota consume", "guest-quota")?.perSecond, 10_000, "%.0f/s")
        }
        perEngine("document puts", "≥ 10,000/s") {
            atLeast(throughput($0, "document put (256 B)", "user-data")?.perSecond, 10_000, "%.0f/s")
        }
        perEngine("consumes and puts over pgbench's", "≥ 0.80× each") { stack in
            let ratios = stack.anchors.compactMap { anchor in
                throughput(stack, anchor.row, anchor.path).map { $0.perSecond / anchor.transactionsPerSecond }
            }
            guard let lowest = ratios.min() else { return nil }
            return atLeast(lowest, 0.8, "%.2f× (lowest)")
        }
        perEngine("cleanup of 100,000 guests", "≤ 30 s") { stack in
            atMost(stack.cleanup.first { $0.guests == 100_000 }?.sweepSeconds, 30, "%.1f s")
        }
        perEngine("cleanup rate, largest over smallest", "≥ 0.80× (flat)") { stack in
            guard let smallest = stack.cleanup.min(by: { $0.guests < $1.guests }),
                let largest = stack.cleanup.max(by: { $0.guests < $1.guests }),
                largest.guests > smallest.guests, smallest.guestsPerSecond > 0
            else { return nil }
            return atLeast(largest.guestsPerSecond / smallest.guestsPerSecond, 0.8, "%.2f×")
        }
        perEngine("delete-everything, 10,000 documents", "≤ 50 ms") { stack in
            atMost(
                stack.operations.first { $0.name == "delete-everything" && $0.documents == 10_000 }?.milliseconds,
                50,
                "%.0f ms"
            )
        }
        let passwordCheckMilliseconds = self.passwordHashes.first { $0.algorithm == "argon2id" }
            .flatMap { $0.hashesPerSecondOneCore > 0 ? 1_000 / $0.hashesPerSecondOneCore : nil }
        perEngine("link-or-merge, over merge + password check", "≤ +30 ms") { stack in
            guard let row = stack.operations.first(where: { $0.name == "link-or-merge (merge)" }),
                let merge = row.comparisonMilliseconds, let check = passwordCheckMilliseconds
            else { return nil }
            return atMost(row.milliseconds - merge - check, 30, "%+.0f ms")
        }
        perEngine("identity's peak RSS", "≤ 100 MiB") { stack in
            atMost(stack.peakMemory.first { $0.service == "identity" }?.peakMiB, 100, "%.0f MiB")
        }
        for level in [64, 256] {
            let foyer = rpc.first { $0.system == "foyer" && $0.inFlight == level }?.callsPerSecond
            let raw = rpc.first { $0.system == "raw-nio-echo" && $0.inFlight == level }?.callsPerSecond
            let ratio = foyer.flatMap { foyer in raw.flatMap { $0 > 0 ? foyer / $0 : nil } }
            var results: [String: BenchTarget.Result] = [:]
            results["any"] = atLeast(ratio, 0.5, "%.2f×")
            targets.append(
                BenchTarget(name: "RPC runtime at \(level) in flight", goal: "≥ 0.50× raw echo", results: results)
            )
        }
        return targets
    }

    /// The targets table: one line per target, a column per engine ("met" or "MISSED" beside the number); a
    /// target that does not touch a database is printed once, in the first column.
    func printTargets() {
        let targets = self.judgedTargets()
        let columns = stacks.isEmpty ? ["any"] : stacks.map(\.engine.rawValue)
        let titles = stacks.isEmpty ? ["measured"] : stacks.map(\.engine.title)
        let widths = [44, 18] + columns.map { _ in 20 }
        print(
            "\nTargets, judged on this run (\"not run\": this run did not measure the rows it needs, e.g. without --full)"
        )
        print(BenchTable.row(["target", "goal"] + titles, widths: widths))
        var judged = 0
        var missed = 0
        for target in targets {
            let cells = columns.enumerated().map { index, column -> String in
                let result: BenchTarget.Result?
                if let any = target.results["any"] {
                    guard index == 0 else { return "" }
                    result = any
                } else {
                    result = target.results[column]
                }
                guard let result else { return "not run" }
                judged += 1
                if !result.met { missed += 1 }
                return result.measured + (result.met ? " met" : " MISSED")
            }
            print(BenchTable.row([target.name, target.goal] + cells, widths: widths))
        }
        print("\(missed) of \(judged) judged targets missed")
    }
}
