import Foundation
import FoyerRPC
import NIOCore
import Testing

@testable import FoyerGateway

@Suite("The gateway's in-memory tables hold what is live, not what was ever seen")
struct ExpiringTableTests {
    private let start = Date(timeIntervalSince1970: 1_800_000_000)

    @Test("Under steady arrivals a table holds about one lifetime of entries, far below its capacity")
    func steadyArrivalsStayFlat() {
        var table = ExpiringTable<String, Int>(lifetime: 10, capacity: 1_000_000)
        // 64 new keys a second (times exact in binary) for about 156 seconds: over fifteen lifetimes.
        for index in 0..<10_000 {
            let now = start.addingTimeInterval(Double(index) / 64)
            table.store(index, for: "key-\(index)", storedAt: now, now: now)
        }
        let end = start.addingTimeInterval(Double(9_999) / 64)
        #expect(table.count == 640)
        #expect(table.value("key-9999", now: end) == 9_999)
        #expect(table.value("key-9360", now: end) == 9_360)
        #expect(table.value("key-9359", now: end) == nil)
    }

    @Test("An entry is found until its lifetime has passed, and not before it was stored")
    func lifetimeIsExact() {
        var table = ExpiringTable<String, String>(lifetime: 10, capacity: 10)
        table.store("v", for: "k", storedAt: start, now: start)
        #expect(table.value("k", now: start) == "v")
        #expect(table.value("k", now: start.addingTimeInterval(9.999)) == "v")
        #expect(table.value("k", now: start.addingTimeInterval(10)) == nil)
        #expect(table.value("k", now: start.addingTimeInterval(-1)) == nil)
    }

    @Test("A full table drops its oldest entry for a new key, and keeps every other")
    func capacityDropsTheOldest() {
        var table = ExpiringTable<Int, Int>(lifetime: 1_000, capacity: 3)
        for key in 0..<5 {
            let now = start.addingTimeInterval(Double(key))
            table.store(key, for: key, storedAt: now, now: now)
        }
        let now = start.addingTimeInterval(5)
        #expect(table.count == 3)
        #expect(table.value(0, now: now) == nil)
        #expect(table.value(1, now: now) == nil)
        #expect([2, 3, 4].map { table.value($0, now: now) } == [2, 3, 4])
        // Replacing a key that is held needs no room.
        table.store(40, for: 4, storedAt: now, now: now)
        #expect([2, 3, 4].map { table.value($0, now: now) } == [2, 3, 40])
    }

    @Test("A key stored again lives from its last store; a removed key stored again is not dropped early")
    func restoresAndRemovals() {
        var table = ExpiringTable<String, Int>(lifetime: 10, capacity: 10)
        table.store(1, for: "k", storedAt: start, now: start)
        let later = start.addingTimeInterval(5)
        table.store(2, for: "k", storedAt: later, now: later)
        // The first store's place in the queue expires; the second store stands.
        let afterFirst = start.addingTimeInterval(12)
        table.store(0, for: "other", storedAt: afterFirst, now: afterFirst)
        #expect(table.value("k", now: afterFirst) == 2)

        table.removeValue(for: "k")
        #expect(table.value("k", now: afterFirst) == nil)
        table.store(3, for: "k", storedAt: afterFirst, now: afterFirst)
        let afterSecond = start.addingTimeInterval(16)
        table.store(0, for: "another", storedAt: afterSecond, now: afterSecond)
        #expect(table.value("k", now: afterSecond) == 3)
        #expect(table.count == 3)
    }

    @Test("Session answers of sessions that made their calls and left do not pile up")
    func sessionChecksFollowTheLiveSessions() async throws {
        let checks = SessionChecks(freshness: .seconds(1), refusalMemory: .seconds(960), capacity: 100_000)
        // 64 new sessions a second for about 156 seconds, each making a call and signing out (as a guest journey
        // does).
        for index in 0..<10_000 {
            let now = start.addingTimeInterval(Double(index) / 64)
            let key = SessionChecks.Key(sessionID: "s\(index)", issuedAt: 1)
            try await checks.confirm(key, uid: "u\(index)", now: { now }, verify: {})
            checks.forget(uid: "u\(index)", now: now)
        }
        // The last second of sessions and of sign-outs, not 10,000 of each.
        #expect(checks.count == 2 * 64)
    }

    @Test("Finished operations and activity reports are dropped once their time has passed")
    func operationsAndActivityExpire() {
        let results = OperationResults(capacity: 10_000, lifetime: .seconds(600))
        let activity = ActivityThrottle(interval: .seconds(600))
        for index in 0..<3_000 {
            let now = start.addingTimeInterval(Double(index))
            let answer = ByteBuffer(string: "answer \(index)")
            results.remember("op-\(index)", request: ByteBuffer(string: "r"), answer: answer, now: now)
            #expect(activity.shouldReport("u\(index)", now: now))
            #expect(!activity.shouldReport("u\(index)", now: now.addingTimeInterval(1)))
        }
        #expect(results.count == 600)
        #expect(activity.count == 600)
        let end = start.addingTimeInterval(2_999)
        let request = ByteBuffer(string: "r")
        #expect(outcome(results.lookup("op-2999", request: request, now: end)) == "answer 2999")
        // The same operation id with another request is refused; an operation older than its lifetime is forgotten.
        #expect(outcome(results.lookup("op-2999", request: ByteBuffer(string: "s"), now: end)) == "conflict")
        #expect(outcome(results.lookup("op-2399", request: request, now: end)) == "none")
        #expect(activity.shouldReport("u2399", now: end))
        #expect(!activity.shouldReport("u2400", now: end))
    }

    private func outcome(_ lookup: OperationResults.Lookup) -> String {
        switch lookup {
        case .none: "none"
        case .conflict: "conflict"
        case .answer(let answer): String(buffer: answer)
        }
    }
}
