import Foundation
import FoyerAPI
import FoyerClient
import Testing

extension CLITests {
    @Test("quota consume and release an app counter; quota alone still shows the usage")
    func quotaCounters() async throws {
        try await withStack(options: AppCounterClientTests.options) { stack in
            let session = stack.sessionFile("counters")
            _ = try await ok(stack, "guest", session: session)
            let consumed = try await ok(
                stack,
                "quota",
                "consume",
                "uploads",
                "--amount",
                "2",
                "--idempotency-key",
                "u-1",
                session: session
            )
            #expect(consumed["counter"] as? String == "uploads")
            #expect(consumed["limit"] as? Int == 3)
            #expect(consumed["used"] as? Int == 2)
            #expect(consumed["remaining"] as? Int == 1)
            let denied = try await fails(stack, "quota", "consume", "uploads", "--amount", "2", session: session)
            #expect(denied.error["error"] as? String == "quota-exceeded")
            #expect(denied.error["used"] as? Int == 2)
            let released = try await ok(stack, "quota", "release", "uploads", session: session)
            #expect(released["used"] as? Int == 1)
            let reserved = try await fails(stack, "quota", "consume", "documents", session: session)
            #expect(reserved.error["error"] as? String == "counter-reserved")
            let usage = try await ok(stack, "quota", session: session)
            #expect(usage["plan"] as? String == "guest")
        }
    }
}
