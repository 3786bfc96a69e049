import FoyerClient
import Testing

@testable import FoyerLoad

@Suite("Load outcomes")
struct LoadOutcomeTests {
    @Test("an answer is a success; an expected refusal is an outcome; anything else is an error")
    func classify() {
        #expect(LoadOutcome.classify(nil) == .success)
        #expect(LoadOutcome.classify(.quotaExceeded, expecting: [.quotaExceeded]) == .expected("quota-exceeded"))
        #expect(LoadOutcome.classify(.quotaExceeded) == .error("quota-exceeded"))
        #expect(LoadOutcome.classify(.versionMismatch, expecting: [.quotaExceeded]) == .error("version-mismatch"))
    }

    @Test("refused guest sign-ups stop the run and say how to let sign-ins name their source")
    func signupRateLimited() throws {
        let reason = try #require(
            LoadOutcome.stopReason(for: .signupRateLimited, operation: .guestSignIn, anySucceeded: true)
        )
        #expect(reason.contains("--load-test-sources"))
        #expect(reason.contains("FOYER_LOAD_TEST_SOURCES=1"))
    }

    @Test("an unreachable gateway stops the run only before anything succeeded")
    func unavailable() {
        #expect(LoadOutcome.stopReason(for: .unavailable, operation: .put, anySucceeded: false) != nil)
        #expect(LoadOutcome.stopReason(for: .unavailable, operation: .put, anySucceeded: true) == nil)
        #expect(LoadOutcome.stopReason(for: .quotaExceeded, operation: .put, anySucceeded: false) == nil)
    }

    @Test("source addresses are distinct, in 198.18.0.0/15, and wrap around")
    func sources() {
        #expect(LoadSources.address(0) == "198.18.0.0")
        #expect(LoadSources.address(257) == "198.18.1.1")
        #expect(LoadSources.address(65_536) == "198.19.0.0")
        #expect(LoadSources.address(LoadSources.count - 1) == "198.19.255.255")
        #expect(LoadSources.address(LoadSources.count) == "198.18.0.0")
        let first = (0..<5000).map(LoadSources.address)
        #expect(Set(first).count == 5000)
    }
}
