import Testing

@testable import FoyerLoad

@Suite("The rate schedule")
struct RateScheduleTests {
    @Test("token n is due n / rate seconds after the start")
    func offsets() {
        let schedule = RateSchedule(rate: 4)
        #expect(schedule.offset(ofToken: 0) == .zero)
        #expect(schedule.offset(ofToken: 1) == .milliseconds(250))
        #expect(schedule.offset(ofToken: 4) == .seconds(1))
        #expect(schedule.offset(ofToken: 10) == .milliseconds(2500))
    }

    @Test("a fractional rate spaces tokens further apart than a second")
    func slowRate() {
        let schedule = RateSchedule(rate: 0.5)
        #expect(schedule.offset(ofToken: 1) == .seconds(2))
        #expect(schedule.offset(ofToken: 3) == .seconds(6))
    }

    @Test("offsets never go backwards, so concurrent users keep to the rate together")
    func monotonic() {
        let schedule = RateSchedule(rate: 333)
        let offsets = (0..<2000).map(schedule.offset(ofToken:))
        #expect(zip(offsets, offsets.dropFirst()).allSatisfy { $0 <= $1 })
        #expect(offsets[333] == .seconds(1))
    }
}
