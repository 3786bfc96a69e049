import FoyerSoakKit
import Testing

@Suite("Soak verdict")
struct SoakVerdictTests {
    /// A clean minute whose services all have `resident` bytes of RSS.
    static func minute(_ index: Int, resident: UInt64, errors: [String: UInt64] = [:]) -> SoakMinute {
        SoakMinute(
            minute: index,
            seconds: 60,
            requests: 1000,
            errors: errors,
            outcomes: ["quota-exceeded": 10],
            failedIterations: 0,
            stopReasons: [],
            operations: [],
            services: [
                "identity": ProcessFigures(residentBytes: resident, openFiles: 20),
                "gateway": ProcessFigures(residentBytes: 50_000_000, openFiles: 30),
            ]
        )
    }

    /// Minutes 1 to 4: identity at 80 MB in minute 1 (still warming up), 100 MB at the end of minute 2, then
    /// `later` MB in minute 3 and 100 MB in minute 4.
    static func run(identityLater later: UInt64) -> [SoakMinute] {
        [
            minute(1, resident: 80_000_000), minute(2, resident: 100_000_000), minute(3, resident: later * 1_000_000),
            minute(4, resident: 100_000_000),
        ]
    }

    @Test("9 % growth over minute 2 passes; growth before minute 2 does not count")
    func ninePercentPasses() {
        let verdict = SoakVerdict.judge(
            probe: Self.minute(0, resident: 60_000_000),
            minutes: Self.run(identityLater: 109)
        )
        #expect(verdict.passed)
        #expect(verdict.failures.isEmpty)
        #expect(verdict.memoryChecked)
        #expect(abs((verdict.residentGrowth["identity"] ?? 0) - 0.09) < 1e-9)
        #expect(verdict.residentGrowth["gateway"] == 0)
    }

    @Test("11 % growth over minute 2, even in one minute only, fails naming the service")
    func elevenPercentFails() {
        let verdict = SoakVerdict.judge(probe: nil, minutes: Self.run(identityLater: 111))
        #expect(!verdict.passed)
        #expect(verdict.failures.count == 1)
        #expect(verdict.failures.first?.hasPrefix("identity: RSS grew 11.0 %") == true)
    }

    @Test("one unexpected error in any minute fails; expected outcomes do not")
    func errorFails() {
        var minutes = Self.run(identityLater: 100)
        minutes[3] = Self.minute(4, resident: 100_000_000, errors: ["unavailable": 1])
        let verdict = SoakVerdict.judge(probe: nil, minutes: minutes)
        #expect(!verdict.passed)
        #expect(verdict.failures == ["minute 4: errors unavailable 1"])
        #expect(SoakVerdict.judge(probe: nil, minutes: Self.run(identityLater: 100)).passed)
    }

    @Test("an error in the capacity probe, an iteration cut short or an early stop fails")
    func otherErrorsFail() {
        let probe = Self.minute(0, resident: 1, errors: ["internal": 2])
        #expect(
            SoakVerdict.judge(probe: probe, minutes: Self.run(identityLater: 100)).failures
                == ["capacity probe: errors internal 2"]
        )
        var minutes = Self.run(identityLater: 100)
        minutes[0].failedIterations = 3
        minutes[1].stopReasons = ["refresh: the gateway could not be reached"]
        #expect(
            SoakVerdict.judge(probe: nil, minutes: minutes).failures == [
                "minute 1: 3 iterations cut short",
                "minute 2: stopped early: refresh: the gateway could not be reached",
            ]
        )
    }

    @Test("a service missing from a minute's figures (it stopped) fails")
    func stoppedServiceFails() {
        var minutes = Self.run(identityLater: 100)
        minutes[2].services["gateway"] = nil
        let verdict = SoakVerdict.judge(probe: nil, minutes: minutes)
        #expect(verdict.failures == ["minute 3: gateway was not running at the end"])
    }

    @Test("under 3 minutes only errors are checked, and a note says the memory check needs 3")
    func shortRunChecksErrorsOnly() {
        let minutes = [Self.minute(1, resident: 10_000_000), Self.minute(2, resident: 500_000_000)]
        let verdict = SoakVerdict.judge(probe: nil, minutes: minutes)
        #expect(verdict.passed)
        #expect(!verdict.memoryChecked)
        #expect(verdict.residentGrowth.isEmpty)
        #expect(verdict.notes.count == 1)
        #expect(verdict.notes.first?.contains("at least 3 minutes") == true)
        var failing = minutes
        failing[1].errors = ["internal": 1]
        #expect(!SoakVerdict.judge(probe: nil, minutes: failing).passed)
    }

    @Test("a failure found after the minutes turns a pass into a failure")
    func laterFailure() {
        var verdict = SoakVerdict.judge(probe: nil, minutes: Self.run(identityLater: 100))
        verdict.fail("the stack did not stop cleanly")
        #expect(!verdict.passed)
        #expect(verdict.failures == ["the stack did not stop cleanly"])
    }
}
