import FoyerClient
import Histogram
import Testing

@testable import FoyerLoad

@Suite("Load reports")
struct LoadReportTests {
    @Test("the latency summary reads the histogram's percentiles")
    func latencySummary() {
        var histogram = LatencySummary.makeHistogram()
        for millisecond in 1...1000 { _ = histogram.record(UInt64(millisecond) * 1_000_000) }
        let summary = LatencySummary(histogram)
        // Three significant digits: within about 0.1 % of the exact value (0.2 % allowed).
        for (value, exact) in [
            (summary.p50, 500e6), (summary.p90, 900e6), (summary.p99, 990e6),
            (summary.p999, 999e6), (summary.max, 1000e6),
        ] {
            #expect(abs(Double(value) - exact) <= exact * 0.002, "\(value) is not about \(exact)")
        }
        #expect(abs(summary.mean - 500.5e6) <= 1e6)
        #expect(
            LatencySummary(LatencySummary.makeHistogram())
                == LatencySummary(p50: 0, p90: 0, p99: 0, p999: 0, max: 0, mean: 0)
        )
    }

    /// A report of a short guest journey: 20 writes and a refusal in second 0, a link and an error in second 1.
    static func journeyReport() throws -> LoadReport {
        let recorder = LoadRecorder()
        recorder.record(.guestSignIn, .success, latency: .milliseconds(4), elapsed: .milliseconds(5))
        for index in 0..<20 {
            recorder.record(.put, .success, latency: .milliseconds(2), elapsed: .milliseconds(10 + index))
        }
        recorder.record(.put, .expected("quota-exceeded"), latency: .milliseconds(1), elapsed: .milliseconds(40))
        recorder.record(.link, .success, latency: .milliseconds(50), elapsed: .milliseconds(1100))
        recorder.record(.put, .error("unavailable"), latency: .milliseconds(8), elapsed: .milliseconds(1200))
        recorder.iterationEnded(completed: true)
        recorder.iterationEnded(completed: false)
        return recorder.report(
            plan: try LoadPlan(scenario: .guestJourney, requests: 24, concurrency: 1),
            elapsed: .seconds(2),
            stopReason: nil
        )
    }

    @Test("requests, outcomes and errors are counted per operation and in total")
    func counts() throws {
        let report = try Self.journeyReport()
        #expect(report.requests == 24)
        #expect(report.errors == 1)
        #expect(report.outcomes == 1)
        #expect(report.iterations == 1)
        #expect(report.failedIterations == 1)
        #expect(report.throughput == 12)
        #expect(report.operations.map(\.operation.name) == ["guest-sign-in", "link", "put"])
        let put = try #require(report.operations.last)
        #expect(put.count == 22)
        #expect(put.outcomes == ["quota-exceeded": 1])
        #expect(put.errors == ["unavailable": 1])
        #expect(report.errorsByStatus.map(\.status) == ["unavailable"])
        #expect(report.outcomesByStatus.map(\.count) == [1])
        #expect(!report.isClean)
    }

    @Test("the timeline has a bucket per second with its requests, errors and latency")
    func timeline() throws {
        let report = try Self.journeyReport()
        #expect(report.timeline.count == 2)
        #expect(report.timeline[0].requests == 22)
        #expect(report.timeline[0].errors == 0)
        #expect(report.timeline[1].requests == 2)
        #expect(report.timeline[1].errors == 1)
        // Two significant digits per second: within 1 %.
        #expect(abs(Double(report.timeline[0].p50Nanoseconds) - 2e6) <= 0.02e6)
        #expect(abs(Double(report.timeline[1].p99Nanoseconds) - 50e6) <= 0.5e6)
    }

    @Test("the table has a row per operation and a total, aligned, then errors and outcomes by status")
    func table() throws {
        let report = try Self.journeyReport()
        let lines = report.table.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(lines[0].hasPrefix("foyer load guest-journey: 1 virtual users over 1 connections"))
        let header = try #require(lines.firstIndex { $0.hasPrefix("operation") })
        let rows = Array(lines[header...(header + 4)])
        #expect(Set(rows.dropLast().map(\.count)).count == 1, "columns are not aligned: \(rows)")
        #expect(rows.allSatisfy { !$0.hasSuffix(" ") })
        #expect(rows[3].hasPrefix("put "))
        #expect(rows[3].split(separator: " ").prefix(5) == ["put", "22", "11.0", "1", "1"])
        #expect(rows[4].hasPrefix("all "))
        #expect(lines.contains("errors by status: unavailable 1"))
        #expect(lines.contains("expected outcomes: quota-exceeded 1"))
    }

    @Test(
        "decimals are rounded without an exponent",
        arguments: [
            (0.0, 2, "0.00"), (1.005, 1, "1.0"), (12.346, 2, "12.35"), (1e7, 1, "10000000.0"), (2.5, 0, "3"),
        ]
    )
    func decimal(value: Double, places: Int, expected: String) {
        #expect(LoadReport.decimal(value, places: places) == expected)
    }
}
