import FoyerAPI
import FoyerRPC
import FoyerTestSupport
import FoyerWire
import NIOCore
import Testing

@Suite("consume and refund")
struct ConsumeTests {
    @Test("an allowed consume answers limit, used and remaining", arguments: TestEngine.allCases)
    func allowedConsume(engine: TestEngine) async throws {
        try await withGuestQuota(engine) { quota async throws in
            let uid = try await quota.open()
            let first = try await quota.consume(uid, "documents", 3)
            #expect(first.usage == CounterUsage(counter: "documents", limit: 20, used: 3))
            #expect(first.usage.remaining == 17)
            #expect(!first.replayed)
            let bytes = try await quota.consume(uid, "bytes", 1000)
            #expect(bytes.usage == CounterUsage(counter: "bytes", limit: 1 << 20, used: 1000))
        }
    }

    @Test(
        "a denial is quota-exceeded with limit, used, remaining and the amount asked; nothing is counted",
        arguments: TestEngine.allCases
    )
    func denial(engine: TestEngine) async throws {
        try await withGuestQuota(engine) { quota async throws in
            let uid = try await quota.open()
            _ = try await quota.consume(uid, "documents", 18)
            let error = await expectStatus(GuestQuotaStatus.quotaExceeded) {
                try await quota.consume(uid, "documents", 3)
            }
            let details = try QuotaExceededDetails(decoding: try #require(error?.details))
            #expect(
                details
                    == QuotaExceededDetails(
                        usage: CounterUsage(counter: "documents", limit: 20, used: 18),
                        requested: 3
                    )
            )
            #expect(details.usage.remaining == 2)
            #expect(try await quota.used(uid) == 18)
            // Exactly up to the limit is allowed; an amount larger than the limit itself is denied too.
            #expect(try await quota.consume(uid, "documents", 2).usage.remaining == 0)
            await expectStatus(GuestQuotaStatus.quotaExceeded) { try await quota.consume(uid, "documents", 1) }
            let other = try await quota.open()
            await expectStatus(GuestQuotaStatus.quotaExceeded) { try await quota.consume(other, "documents", 21) }
            #expect(try await quota.used(other) == 0)
        }
    }

    @Test(
        "a retry with the same key does not count twice; the same key with another amount is op-conflict",
        arguments: TestEngine.allCases
    )
    func idempotentRetry(engine: TestEngine) async throws {
        try await withGuestQuota(engine) { quota async throws in
            let uid = try await quota.open()
            let first = try await quota.consume(uid, "documents", 2, key: "write-1")
            let again = try await quota.consume(uid, "documents", 2, key: "write-1")
            #expect(first.usage.used == 2 && !first.replayed)
            #expect(again.usage.used == 2 && again.replayed)
            await expectStatus(GuestQuotaStatus.opConflict) {
                try await quota.consume(uid, "documents", 3, key: "write-1")
            }
            await expectStatus(GuestQuotaStatus.opConflict) { try await quota.consume(uid, "bytes", 2, key: "write-1") }
            // Keys are per uid: another user may use the same key.
            let other = try await quota.open()
            #expect(try await quota.consume(other, "documents", 2, key: "write-1").replayed == false)
            #expect(try await quota.used(uid) == 2)
        }
    }

    @Test("a denied consume is not remembered: its retry is evaluated again", arguments: TestEngine.allCases)
    func deniedRetryReevaluated(engine: TestEngine) async throws {
        try await withGuestQuota(engine) { quota async throws in
            let uid = try await quota.open()
            _ = try await quota.consume(uid, "documents", 20, key: "fill")
            await expectStatus(GuestQuotaStatus.quotaExceeded) {
                try await quota.consume(uid, "documents", 1, key: "late")
            }
            _ = try await quota.client.call(GuestQuotaMethods.refund, RefundRequest(uid: uid, idempotencyKey: "fill"))
            #expect(try await quota.consume(uid, "documents", 1, key: "late").usage.used == 1)
        }
    }

    @Test(
        "refund undoes a consume once; an unknown key is spent so a late consume with it is refused",
        arguments: TestEngine.allCases
    )
    func refund(engine: TestEngine) async throws {
        try await withGuestQuota(engine) { quota async throws in
            let uid = try await quota.open()
            _ = try await quota.consume(uid, "documents", 5, key: "a")
            _ = try await quota.consume(uid, "documents", 4, key: "b")
            let refunded = try await quota.client.call(
                GuestQuotaMethods.refund,
                RefundRequest(uid: uid, idempotencyKey: "a")
            )
            #expect(
                refunded
                    == RefundResponse(outcome: .refunded, usage: CounterUsage(counter: "documents", limit: 20, used: 4))
            )
            let again = try await quota.client.call(
                GuestQuotaMethods.refund,
                RefundRequest(uid: uid, idempotencyKey: "a")
            )
            #expect(again.outcome == .alreadyRefunded)
            #expect(again.usage?.used == 4)
            await expectStatus(GuestQuotaStatus.opConflict) { try await quota.consume(uid, "documents", 5, key: "a") }

            let unknown = try await quota.client.call(
                GuestQuotaMethods.refund,
                RefundRequest(uid: uid, idempotencyKey: "never")
            )
            #expect(unknown == RefundResponse(outcome: .notFound, usage: nil))
            let unknownAgain = try await quota.client.call(
                GuestQuotaMethods.refund,
                RefundRequest(uid: uid, idempotencyKey: "never")
            )
            #expect(unknownAgain.outcome == .notFound)
            await expectStatus(GuestQuotaStatus.opConflict) {
                try await quota.consume(uid, "documents", 1, key: "never")
            }
            #expect(try await quota.used(uid) == 4)
        }
    }

    @Test(
        "unknown counters and bad amounts each get their own status; nothing is counted",
        arguments: TestEngine.allCases
    )
    func badInput(engine: TestEngine) async throws {
        try await withGuestQuota(engine) { quota async throws in
            let uid = try await quota.open()
            await expectStatus(GuestQuotaStatus.unknownCounter) { try await quota.consume(uid, "photos", 1) }
            for amount: Int64 in [0, -1, -5, .min, GuestQuotaLimits.consumeAmountMax + 1, .max] {
                await expectStatus(GuestQuotaStatus.invalidAmount) { try await quota.consume(uid, "documents", amount) }
            }
            await expectStatus(.invalidArgument) { try await quota.consume("not a uid!", "documents", 1) }
            await expectStatus(.invalidArgument) { try await quota.consume(uid, "documents", 1, key: "") }
            await expectStatus(.invalidArgument) { try await quota.consume(uid, "documents", 1, key: "with space") }
            await expectStatus(.invalidArgument) {
                try await quota.consume(uid, "documents", 1, key: String(repeating: "k", count: 129))
            }
            // Over a decoder cap: the runtime refuses the body.
            await expectStatus(.invalidArgument) {
                try await quota.consume(String(repeating: "u", count: 65), "documents", 1)
            }
            #expect(try await quota.used(uid) == 0)
        }
    }

    @Test("many consumes racing at the limit never exceed it", arguments: TestEngine.allCases)
    func racingAtTheLimit(engine: TestEngine) async throws {
        try await withGuestQuota(engine) { quota async throws in
            let uid = try await quota.open()
            _ = try await quota.consume(uid, "documents", 5)
            let outcomes = try await withThrowingTaskGroup(of: Bool.self) { group in
                for _ in 0..<60 {
                    group.addTask {
                        do {
                            _ = try await quota.consume(uid, "documents", 1)
                            return true
                        } catch let error as RPCError where error.status == GuestQuotaStatus.quotaExceeded {
                            return false
                        }
                    }
                }
                return try await group.reduce(into: [Bool]()) { $0.append($1) }
            }
            #expect(outcomes.filter { $0 }.count == 15)
            #expect(try await quota.used(uid) == 20)
        }
    }

    @Test("concurrent retries of one key count it once", arguments: TestEngine.allCases)
    func racingRetries(engine: TestEngine) async throws {
        try await withGuestQuota(engine) { quota async throws in
            let uid = try await quota.open()
            let answers = try await withThrowingTaskGroup(of: Consumed.self) { group in
                for _ in 0..<20 { group.addTask { try await quota.consume(uid, "bytes", 700, key: "same") } }
                return try await group.reduce(into: [Consumed]()) { $0.append($1) }
            }
            #expect(answers.filter { !$0.replayed }.count == 1)
            #expect(answers.allSatisfy { $0.usage.used == 700 })
            #expect(try await quota.used(uid, "bytes") == 700)
        }
    }

    @Test(
        "release gives back an amount once per key, never below zero, and its key can never count as a consume",
        arguments: TestEngine.allCases
    )
    func release(engine: TestEngine) async throws {
        try await withGuestQuota(engine) { quota async throws in
            let uid = try await quota.open()
            _ = try await quota.consume(uid, "documents", 5)
            func release(_ amount: UInt64, key: String, counter: String = "documents") async throws -> RefundResponse {
                try await quota.client.call(
                    GuestQuotaMethods.release,
                    ReleaseRequest(uid: uid, counter: counter, amount: amount, idempotencyKey: key)
                )
            }
            let released = try await release(2, key: "del-1")
            #expect(
                released
                    == RefundResponse(outcome: .refunded, usage: CounterUsage(counter: "documents", limit: 20, used: 3))
            )
            #expect(try await release(2, key: "del-1").outcome == .alreadyRefunded)
            #expect(try await quota.used(uid) == 3)
            #expect(try await release(10, key: "del-2").usage?.used == 0)
            await expectStatus(GuestQuotaStatus.opConflict) {
                try await quota.consume(uid, "documents", 1, key: "del-1")
            }
            await expectStatus(GuestQuotaStatus.invalidAmount) { try await release(0, key: "del-3") }
            await expectStatus(GuestQuotaStatus.unknownCounter) {
                try await release(1, key: "del-4", counter: "photos")
            }
            #expect(try await quota.used(uid) == 0)
        }
    }

    @Test(
        "one consume charges several counters, all or none, each under its own key",
        arguments: TestEngine.allCases
    )
    func severalCounters(engine: TestEngine) async throws {
        try await withGuestQuota(engine) { quota async throws in
            let uid = try await quota.open()
            func consume(_ charges: [QuotaCharge]) async throws -> ConsumeResponse {
                try await quota.client.call(GuestQuotaMethods.consume, ConsumeRequest(uid: uid, charges: charges))
            }
            let write = [
                QuotaCharge(counter: "documents", amount: 1, idempotencyKey: "d1"),
                QuotaCharge(counter: "bytes", amount: 500, idempotencyKey: "b1"),
            ]
            let first = try await consume(write)
            #expect(
                first.usage == [
                    CounterUsage(counter: "documents", limit: 20, used: 1),
                    CounterUsage(counter: "bytes", limit: 1 << 20, used: 500),
                ]
            )
            #expect(!first.replayed && !first.opened)
            let again = try await consume(write)
            #expect(again.replayed && again.usage == first.usage)
            // The bytes would pass their limit: the documents are not counted either.
            let error = await expectStatus(GuestQuotaStatus.quotaExceeded) {
                try await consume([
                    QuotaCharge(counter: "documents", amount: 1, idempotencyKey: "d2"),
                    QuotaCharge(counter: "bytes", amount: 1 << 20, idempotencyKey: "b2"),
                ])
            }
            #expect(try QuotaExceededDetails(decoding: try #require(error?.details)).usage.counter == "bytes")
            #expect(try await quota.used(uid) == 1)
            #expect(try await quota.used(uid, "bytes") == 500)
            // Keys of which some were counted and some not, a counter named twice, no charge at all: refused.
            await expectStatus(GuestQuotaStatus.opConflict) {
                try await consume([write[0], QuotaCharge(counter: "bytes", amount: 500, idempotencyKey: "b3")])
            }
            await expectStatus(.invalidArgument) { try await consume([write[0], write[0]]) }
            await expectStatus(.invalidArgument) { try await consume([]) }
            #expect(try await quota.used(uid) == 1)
            #expect(try await quota.used(uid, "bytes") == 500)
        }
    }
}
