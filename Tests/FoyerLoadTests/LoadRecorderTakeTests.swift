import FoyerLoad
import Testing

@Suite("Load recorder interval reports")
struct LoadRecorderTakeTests {
    @Test("taking a report empties the recorder: the next report covers only what came after")
    func takeReportStartsAgain() throws {
        let plan = try LoadPlan(scenario: .readWrite, duration: .seconds(120))
        let recorder = LoadRecorder()
        for _ in 0..<3 { recorder.record(.put, .success, latency: .milliseconds(2), elapsed: .seconds(1)) }
        recorder.record(.get, .error("unavailable"), latency: .milliseconds(5), elapsed: .seconds(2))
        recorder.iterationEnded(completed: false)
        let first = recorder.takeReport(plan: plan, elapsed: .seconds(60))
        #expect(first.requests == 4)
        #expect(first.errors == 1)
        #expect(first.failedIterations == 1)
        #expect(first.stopReason == nil)
        #expect(first.throughput == 4.0 / 60)

        recorder.record(.put, .expected("quota-exceeded"), latency: .milliseconds(1), elapsed: .seconds(61))
        recorder.iterationEnded(completed: true)
        let second = recorder.report(plan: plan, elapsed: .seconds(62), stopReason: nil)
        #expect(second.requests == 1)
        #expect(second.errors == 0)
        #expect(second.outcomes == 1)
        #expect(second.iterations == 1)
        #expect(second.failedIterations == 0)
        #expect(second.operations.map(\.operation) == [.put])
        // The per-second timeline stays whole.
        #expect(second.timeline.map(\.requests)[1] == 3)
        #expect(second.timeline.count == 62)
        #expect(recorder.counts == (1, 0))
    }
}
