import Foundation
import FoyerLoad
import FoyerSoakKit
import Testing

@Suite("Soak minutes")
struct SoakMinuteTests {
    /// A report of `scenario` from a recorder: `puts` successful puts of 2 ms, one expected refusal, and `errors`
    /// unavailable puts.
    static func report(_ scenario: LoadScenario, puts: Int, errors: Int, elapsed: Duration) throws -> LoadReport {
        let recorder = LoadRecorder()
        for index in 0..<puts {
            recorder.record(.put, .success, latency: .milliseconds(2), elapsed: .milliseconds(index))
        }
        recorder.record(.put, .expected("quota-exceeded"), latency: .milliseconds(1), elapsed: .zero)
        for _ in 0..<errors { recorder.record(.get, .error("unavailable"), latency: .milliseconds(9), elapsed: .zero) }
        recorder.iterationEnded(completed: errors == 0)
        return recorder.report(
            plan: try LoadPlan(scenario: scenario, duration: .seconds(60)),
            elapsed: elapsed,
            stopReason: nil
        )
    }

    @Test("a minute adds up the scenarios' reports and names operations by scenario")
    func aggregates() throws {
        let figures = ["identity": ProcessFigures(residentBytes: 1 << 20, openFiles: 12)]
        let minute = SoakMinute(
            minute: 3,
            reports: [
                try Self.report(.guestJourney, puts: 20, errors: 0, elapsed: .seconds(60)),
                try Self.report(.readWrite, puts: 10, errors: 2, elapsed: .seconds(61)),
            ],
            services: figures
        )
        #expect(minute.minute == 3)
        #expect(minute.seconds == 61)
        #expect(minute.requests == 21 + 11 + 2)
        #expect(minute.errors == ["unavailable": 2])
        #expect(minute.outcomes == ["quota-exceeded": 2])
        #expect(minute.failedIterations == 1)
        #expect(!minute.isClean)
        #expect(minute.operations.map(\.name) == ["guest-journey/put", "read-write/get", "read-write/put"])
        let put = try #require(minute.operations.first)
        #expect(put.requests == 21)
        #expect(abs(put.p50Milliseconds - 2) < 0.01)
        #expect(minute.operations[1].errors == 2)
        #expect(minute.services == figures)
    }

    @Test("a minute with refusals the scenario expects and no error is clean")
    func expectedOutcomesAreClean() throws {
        let minute = SoakMinute(
            minute: 1,
            reports: [try Self.report(.guestJourney, puts: 20, errors: 0, elapsed: .seconds(60))],
            services: [:]
        )
        #expect(minute.isClean)
        #expect(minute.outcomes == ["quota-exceeded": 1])
    }

    @Test("the soak's rates are 70 % of each scenario's probe throughput, at least one per second")
    func rates() throws {
        let rates = SoakRates.make(
            probe: [
                try Self.report(.readWrite, puts: 99, errors: 0, elapsed: .seconds(1)),
                try Self.report(.merge, puts: 0, errors: 0, elapsed: .seconds(10)),
            ],
            fraction: SoakRates.defaultFraction
        )
        #expect(abs((rates[.readWrite] ?? 0) - 70) < 1e-9)
        #expect(rates[.merge] == 1)
    }

    @Test("the minute's block shows totals, p50/p99 per operation and every service's RSS and open files")
    func text() throws {
        let minute = SoakMinute(
            minute: 2,
            reports: [try Self.report(.readWrite, puts: 10, errors: 1, elapsed: .seconds(60))],
            services: ["gateway": ProcessFigures(residentBytes: 3 << 20, openFiles: 17)]
        )
        let text = SoakText.minute(minute)
        #expect(text.hasPrefix("minute 2: 12 requests in 60.0 s (0.2/s); errors: unavailable 1; "))
        #expect(text.contains("read-write/put"))
        #expect(text.contains("RSS: gateway 3.0 MiB (peak 3.0 MiB), 17 fds"))
    }

    @Test(
        "the summary merges each operation over the minutes: requests and errors added, p50 a median, p99 the largest"
    )
    func operationSummary() throws {
        func minute(_ number: Int, p50: Double, p99: Double, errors: UInt64) -> SoakMinute {
            SoakMinute(
                minute: number,
                seconds: 60,
                requests: 100,
                errors: [:],
                outcomes: [:],
                failedIterations: 0,
                stopReasons: [],
                operations: [
                    .init(
                        name: "read-write/put",
                        requests: 100,
                        errors: errors,
                        p50Milliseconds: p50,
                        p99Milliseconds: p99
                    )
                ],
                services: [:]
            )
        }
        let lines = SoakText.operations([
            minute(1, p50: 4, p99: 30, errors: 0), minute(2, p50: 9, p99: 120, errors: 2),
            minute(3, p50: 5, p99: 40, errors: 0),
        ])
        #expect(lines.count == 2)
        let row = lines[1].split(separator: " ", omittingEmptySubsequences: true)
        #expect(row == ["read-write/put", "300", "2", "5.0", "ms", "120.0", "ms"], "\(lines)")
        #expect(SoakText.operations([]).isEmpty)
    }

    @Test("the JSON round-trips")
    func json() throws {
        let minutes = SoakVerdictTests.run(identityLater: 105)
        let result = SoakResult(
            probe: SoakVerdictTests.minute(0, resident: 1),
            loadFraction: 0.7,
            rates: ["refresh": 12.5],
            minuteSeconds: 60,
            minutes: minutes,
            verdict: SoakVerdict.judge(probe: nil, minutes: minutes)
        )
        #expect(try JSONDecoder().decode(SoakResult.self, from: result.json()) == result)
    }

    @Test("a minute's figures are its lowest RSS sampled, its peak, and the last count of open files")
    func samples() {
        let figures = ProcessFigures(
            samples: [
                ProcessFigures(residentBytes: 50, openFiles: 20), ProcessFigures(residentBytes: 300, openFiles: 25),
                ProcessFigures(residentBytes: 48, openFiles: 21), ProcessFigures(residentBytes: 60, openFiles: 22),
            ]
        )
        #expect(figures == ProcessFigures(residentBytes: 48, residentPeakBytes: 300, openFiles: 22))
        #expect(ProcessFigures(samples: []) == nil)
    }

    @Test("VmRSS is read from /proc/PID/status in bytes; this process's figures are readable")
    func processFigures() throws {
        let status = "Name:\tgateway\nVmHWM:\t  2048 kB\nVmRSS:\t  1536 kB\nThreads:\t4\n"
        #expect(ProcessFigures.residentBytes(status: status) == 1536 * 1024)
        #expect(ProcessFigures.residentBytes(status: "Name:\tx\n") == nil)
        #if os(Linux)
        let own = try #require(ProcessFigures.read(pid: getpid()))
        #expect(own.residentBytes > 0)
        #expect(own.openFiles >= 3)
        #endif
    }
}
