import Foundation
import FoyerAPI
import FoyerRPC
import Testing

@testable import FoyerGateway

@Suite("Per-source limits on the gateway's unauthenticated calls")
struct SourceRateLimiterTests {
    private let start = Date(timeIntervalSince1970: 1_800_000_000)

    @Test("The burst is admitted, the next call is refused with the wait, and a token comes back in time")
    func boundary() throws {
        let limiter = SourceRateLimiter(name: "sign-in", limit: RateLimit(perMinute: 6, burst: 3), sourcesMax: 100)
        for _ in 0..<3 { try limiter.admit("203.0.113.7", now: start) }
        let refusal = #expect(throws: RPCError.self) { try limiter.admit("203.0.113.7", now: self.start) }
        #expect(refusal?.status == GatewayStatus.rateLimited)
        // One token every 10 s at 6 a minute.
        #expect(refusal?.retryAfterMilliseconds == 10_000)
        #expect(throws: RPCError.self) { try limiter.admit("203.0.113.7", now: self.start.addingTimeInterval(9.9)) }
        // 20 s after the burst was spent, two tokens are back (the refused call took none).
        let later = start.addingTimeInterval(20)
        try limiter.admit("203.0.113.7", now: later)
        try limiter.admit("203.0.113.7", now: later)
        #expect(throws: RPCError.self) { try limiter.admit("203.0.113.7", now: later) }
    }

    @Test("One source's exhaustion does not touch another's")
    func sourcesAreIndependent() throws {
        let limiter = SourceRateLimiter(name: "refresh", limit: RateLimit(perMinute: 1, burst: 1), sourcesMax: 100)
        try limiter.admit("198.51.100.1", now: start)
        #expect(throws: RPCError.self) { try limiter.admit("198.51.100.1", now: self.start) }
        try limiter.admit("198.51.100.2", now: start)
    }

    @Test("The table stays bounded and a full table still limits the source in front of it")
    func boundedMemory() throws {
        let limiter = SourceRateLimiter(name: "refresh", limit: RateLimit(perMinute: 1, burst: 2), sourcesMax: 8)
        for index in 0..<100 { try limiter.admit("source-\(index)", now: start) }
        #expect(limiter.trackedSources <= 8)
        try limiter.admit("attacker", now: start)
        try limiter.admit("attacker", now: start)
        #expect(throws: RPCError.self) { try limiter.admit("attacker", now: self.start) }
    }
}
