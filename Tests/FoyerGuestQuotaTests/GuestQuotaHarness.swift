import FoyerAPI
import FoyerGuestQuota
import FoyerRPC
import FoyerStorage
import FoyerTestSupport
import FoyerWire
import Testing

/// A running guest-quota service on a fresh database, a client of it, and its clock.
typealias GuestQuotaHarness = StoreServiceHarness<GuestQuotaConfiguration>

extension StoreServiceHarness where Configuration == GuestQuotaConfiguration {
    /// Opens a quota account on `plan` (a new uid each call unless one is given).
    @discardableResult
    func open(_ uid: String = testUID(), plan: String = "guest") async throws -> String {
        _ = try await client.call(GuestQuotaMethods.openAccount, OpenQuotaAccountRequest(uid: uid, plan: plan))
        return uid
    }

    /// A consume of one counter.
    func consume(
        _ uid: String,
        _ counter: String = "documents",
        _ amount: Int64 = 1,
        key: String = newKey()
    )
        async throws -> Consumed
    {
        let charge = QuotaCharge(counter: counter, amount: amount, idempotencyKey: key)
        let answer = try await client.call(GuestQuotaMethods.consume, ConsumeRequest(uid: uid, charges: [charge]))
        return Consumed(usage: answer.usage[0], replayed: answer.replayed, opened: answer.opened)
    }

    func used(_ uid: String, _ counter: String = "documents") async throws -> UInt64? {
        let usage = try await client.call(GuestQuotaMethods.usage, QuotaUsageRequest(uid: uid))
        return usage.counters.first { $0.counter == counter }?.used
    }

    func liveGuests() async throws -> UInt64 {
        try await client.call(GuestQuotaMethods.stats, Empty()).liveGuests
    }
}

/// The answer of a one-counter consume.
struct Consumed: Sendable {
    var usage: CounterUsage
    var replayed: Bool
    var opened: Bool
}

func newKey() -> String { "key-\(UInt64.random(in: 0...UInt64.max))" }

/// Runs `body` against guest-quota started in-process on port 0 over a fresh database on `engine`:
/// `withGuestQuota(engine, configure: { ... }, maxAttempts: 1) { harness in ... }`.
let withGuestQuota = StoreServiceUnderTest<GuestQuotaConfiguration>(service: "guest-quota") {
    try await GuestQuotaService.make(configuration: $0, server: $1, logger: $2)
}

/// Expects `body` to fail with a status (named as GuestQuotaStatus names it), and returns the error for further checks.
let expectStatus = StatusExpectation(names: GuestQuotaStatus.name(of:))
