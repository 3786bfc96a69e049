import Foundation
import FoyerBenchKit

extension BenchReport {
    /// The end-to-end tables: each row once, with a group of columns per engine and, when both ran, the ratio of
    /// PostgreSQL's number over SQLite's.
    func printStack() {
        guard let first = stacks.first else { return }
        print(
            "\nEnd to end: the five executables built beside foyer-bench, on loopback, \(first.sizes.concurrency) calls in flight, each engine on fresh databases"
        )
        for stack in stacks {
            switch stack.engine {
            case .sqlite: print("  SQLite: a file per service, synchronous=FULL")
            case .postgres:
                print("  PostgreSQL: a schema per service in one database; \(postgres ?? "server settings unknown")")
            }
        }
        if stacks.count > 1 {
            print("  pg/sqlite: PostgreSQL's number over SQLite's (for rates above 1 is faster, for times slower)")
        }
        printThroughput(first)
        printOperations(first)
        printCalls(first)
        printCleanup(first)
        printMemory(first)
    }

    private var ratioColumn: [String] { stacks.count > 1 ? ["pg/sqlite"] : [] }

    /// PostgreSQL's value over SQLite's, when both ran and both have one.
    private func ratio(_ value: (StackReport) -> Double?) -> [String] {
        guard stacks.count > 1 else { return [] }
        guard let sqlite = stacks.first(where: { $0.engine == .sqlite }).flatMap(value),
            let postgres = stacks.first(where: { $0.engine == .postgres }).flatMap(value), sqlite > 0
        else { return ["-"] }
        return [String(format: "%.2f×", postgres / sqlite)]
    }

    private func printThroughput(_ first: StackReport) {
        let widths = [22, 12] + stacks.flatMap { _ in [10, 8, 8] } + ratioColumn.map { _ in 9 }
        let header = stacks.flatMap { ["\($0.engine.short) per s", "p50 ms", "p99 ms"] }
        print("\n" + BenchTable.row(["operation", "via"] + header + ratioColumn, widths: widths))
        var failures: [String] = []
        for entry in first.throughput {
            func row(_ stack: StackReport) -> ThroughputRow? {
                stack.throughput.first { $0.name == entry.name && $0.path == entry.path }
            }
            let cells = stacks.flatMap { stack -> [String] in
                guard let row = row(stack) else { return ["-", "-", "-"] }
                if row.failed > 0 {
                    failures.append("\(row.failed) failed: \(row.name) via \(row.path) on \(stack.engine.title)")
                }
                return [
                    String(format: "%.0f", row.perSecond),
                    row.p50Milliseconds.map { String(format: "%.2f", $0) } ?? "-",
                    row.p99Milliseconds.map { String(format: "%.2f", $0) } ?? "-",
                ]
            }
            print(
                BenchTable.row([entry.name, entry.path] + cells + ratio { row($0)?.perSecond }, widths: widths)
            )
        }
        failures.forEach { print("  \($0)") }
        for stack in stacks {
            printRateRatios(stack)
        }
    }

    /// The gateway's sign-in rate as a share of identity's own, and the HTTP edge's rates as a share of the binary
    /// edge's, measured in the same run on one engine.
    private func printRateRatios(_ stack: StackReport) {
        func rate(_ name: String, _ path: String) -> Double? {
            stack.throughput.first { $0.name == name && $0.path == path }?.perSecond
        }
        let on = stacks.count > 1 ? " (\(stack.engine.title))" : ""
        if let gateway = rate("guest sign-in", "gateway"), let identity = rate("guest sign-in", "identity"),
            identity > 0
        {
            print(
                String(
                    format: "guest sign-ins through the gateway run at %.2f× identity's own rate",
                    gateway / identity
                )
                    + on
            )
        }
        for name in ["guest sign-in", "document put (256 B)"] {
            guard let binary = rate(name, "gateway"), let http = rate(name, "gateway HTTP"), binary > 0 else {
                continue
            }
            print(
                "\(name) through the HTTP edge runs at \(String(format: "%.2f", http / binary))× the binary edge's rate\(on)"
            )
        }
        for anchor in stack.anchors {
            guard let foyer = rate(anchor.row, anchor.path), anchor.transactionsPerSecond > 0 else { continue }
            var line = String(
                format: "%@ straight at %@ runs at %.2f× PostgreSQL alone on its statements (pgbench: %.0f tps)",
                anchor.row,
                anchor.path,
                foyer / anchor.transactionsPerSecond,
                anchor.transactionsPerSecond
            )
            if let unprepared = anchor.unpreparedTransactionsPerSecond, unprepared > 0 {
                line += String(
                    format: "; unprepared, as PostgresNIO sends them: %.0f tps (%.2f× prepared), Foyer %.2f× that",
                    unprepared,
                    unprepared / anchor.transactionsPerSecond,
                    foyer / unprepared
                )
            }
            print(line + on)
        }
    }

    private func printOperations(_ first: StackReport) {
        let engineWidths = stacks.map { _ in 10 }
        let widths = [22, 10] + engineWidths + ratioColumn.map { _ in 9 } + [22] + engineWidths
        let engineHeader = stacks.map { "\($0.engine.short) ms" }
        print(
            "\n"
                + BenchTable.row(
                    ["operation", "documents"] + engineHeader + ratioColumn + ["beside"] + engineHeader,
                    widths: widths
                )
        )
        for entry in first.operations {
            func row(_ stack: StackReport) -> OperationRow? { stack.operations.first { $0.name == entry.name } }
            let times = stacks.map { row($0).map { String(format: "%.0f", $0.milliseconds) } ?? "-" }
            let beside = stacks.map { row($0)?.comparisonMilliseconds.map { String(format: "%.0f", $0) } ?? "-" }
            print(
                BenchTable.row(
                    [entry.name, "\(entry.documents)"] + times + ratio { row($0)?.milliseconds }
                        + [entry.comparison ?? "-"] + beside,
                    widths: widths
                )
            )
        }
    }

    /// RPCs per operation: the gateway's calls to the services for one client operation, from its own counters,
    /// with the calls of the first engine's run by method.
    private func printCalls(_ first: StackReport) {
        guard !first.calls.isEmpty else { return }
        let widths = [28] + stacks.map { _ in 12 } + [60]
        let header = stacks.map { "\($0.engine.short) RPCs" }
        print("\n" + BenchTable.row(["RPCs per operation (gateway)"] + header + ["calls"], widths: widths))
        for entry in first.calls {
            let counts = stacks.map { stack in
                stack.calls.first { $0.name == entry.name }.map { String(format: "%.0f", $0.calls) } ?? "-"
            }
            let methods = entry.byMethod.sorted { $0.key < $1.key }
                .map { $0.value == 1 ? $0.key : "\($0.key)×\(Int($0.value))" }.joined(separator: " ")
            print(BenchTable.row([entry.name] + counts + [methods], widths: widths))
        }
    }

    private func printCleanup(_ first: StackReport) {
        let widths = [14] + stacks.flatMap { _ in [12, 12, 12] } + ratioColumn.map { _ in 9 }
        let header = stacks.flatMap { ["\($0.engine.short) seed s", "sweep s", "guests/s"] }
        print("\n" + BenchTable.row(["expired guests"] + header + ratioColumn, widths: widths))
        for entry in first.cleanup {
            func row(_ stack: StackReport) -> CleanupRow? { stack.cleanup.first { $0.guests == entry.guests } }
            let cells = stacks.flatMap { stack -> [String] in
                guard let row = row(stack) else { return ["-", "-", "-"] }
                return [
                    String(format: "%.1f", row.seedSeconds), String(format: "%.1f", row.sweepSeconds),
                    String(format: "%.0f", row.guestsPerSecond),
                ]
            }
            print(BenchTable.row(["\(entry.guests)"] + cells + ratio { row($0)?.guestsPerSecond }, widths: widths))
        }
    }

    private func printMemory(_ first: StackReport) {
        let widths = [14] + stacks.map { _ in 14 } + ratioColumn.map { _ in 9 }
        let header = stacks.map { "\($0.engine.short) peak MiB" }
        print("\n" + BenchTable.row(["service"] + header + ratioColumn, widths: widths))
        for entry in first.peakMemory {
            func row(_ stack: StackReport) -> MemoryRow? { stack.peakMemory.first { $0.service == entry.service } }
            let cells = stacks.map { row($0).map { String(format: "%.1f", $0.peakMiB) } ?? "-" }
            print(BenchTable.row([entry.service] + cells + ratio { row($0)?.peakMiB }, widths: widths))
        }
    }
}
