import FoyerClient
import Testing

@testable import FoyerLoad

@Suite("Load plans")
struct LoadPlanTests {
    @Test("neither a duration nor a request count runs for the default duration and says so")
    func defaultBound() throws {
        let plan = try LoadPlan(scenario: .guestJourney)
        #expect(plan.duration == LoadPlan.defaultDuration)
        #expect(plan.requests == nil)
        #expect(plan.notes.count == 1)
        #expect(plan.notes.first?.contains("running for 10s") == true)
    }

    @Test("a request count alone is the only bound")
    func requestBound() throws {
        let plan = try LoadPlan(scenario: .refresh, requests: 100)
        #expect(plan.duration == nil)
        #expect(plan.requests == 100)
        #expect(plan.notes.isEmpty)
    }

    @Test("connections default to at most four and never exceed the virtual users")
    func connections() throws {
        #expect(try LoadPlan(scenario: .refresh, requests: 1, concurrency: 2).connections == 2)
        #expect(try LoadPlan(scenario: .refresh, requests: 1, concurrency: 50).connections == 4)
        let clamped = try LoadPlan(scenario: .refresh, requests: 1, concurrency: 3, connections: 8)
        #expect(clamped.connections == 3)
        #expect(clamped.notes.contains { $0.contains("--connections 8") })
    }

    @Test("zero or negative numbers are refused, naming the option")
    func nonPositive() {
        let cases: [(String, () throws -> LoadPlan)] = [
            ("--concurrency", { try LoadPlan(scenario: .merge, concurrency: 0) }),
            ("--requests", { try LoadPlan(scenario: .merge, requests: -1) }),
            ("--duration", { try LoadPlan(scenario: .merge, duration: .zero) }),
            ("--rate", { try LoadPlan(scenario: .merge, rate: 0) }),
            ("--connections", { try LoadPlan(scenario: .merge, connections: 0) }),
            ("--documents", { try LoadPlan(scenario: .merge, documents: 0) }),
        ]
        for (option, make) in cases {
            let error = #expect(throws: FoyerError.self, "\(option) accepted a non-positive value") { try make() }
            #expect(error == FoyerError.invalidInput)
            #expect(error?.message.contains(option) == true, "\(String(describing: error))")
        }
    }

    @Test("scenarios are found by name; an unknown name lists them all")
    func scenarioNames() throws {
        for scenario in LoadScenario.allCases {
            #expect(try LoadScenario.named(scenario.rawValue) == scenario)
        }
        do {
            _ = try LoadScenario.named("stampede")
            Issue.record("an unknown scenario was accepted")
        } catch {
            #expect(error.message.contains("stampede"))
            #expect(error.message.contains("guest-signup, guest-journey, merge, read-write, refresh"))
        }
    }
}
