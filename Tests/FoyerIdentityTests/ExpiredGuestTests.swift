import Foundation
import FoyerAPI
import FoyerIdentity
import FoyerRPC
import FoyerTestSupport
import FoyerWire
import Testing

@Suite("Expired guests and activity")
struct ExpiredGuestTests {
    private func milliseconds(_ date: Date) -> UInt64 { UInt64(date.timeIntervalSince1970 * 1000) }

    @Test(
        "Idle guests are listed oldest first, in pages, without members, merging guests or recently active ones",
        arguments: TestEngine.allCases
    )
    func listing(engine: TestEngine) async throws {
        try await withIdentity(engine) { identity in
            var idle: [String] = []
            for _ in 0..<5 {
                idle.append(try await identity.newGuest().uid)
                identity.clock.advance(by: .seconds(60))
            }
            // A member, a guest being merged, and a guest that was active lately are never listed.
            let member = try await identity.newGuest()
            _ = try await identity.call(
                IdentityMethods.linkPassword,
                LinkPasswordRequest(uid: member.uid, email: "member@example.com", password: "member password")
            ).linked()
            let merging = try await identity.newGuest()
            _ = try await identity.call(
                IdentityMethods.link,
                .password(merging, email: "member@example.com", password: "member password", operationID: "m")
            ).begun()
            let active = idle.removeFirst()
            identity.clock.advance(by: .seconds(3600))
            try await identity.call(IdentityMethods.recordActivity, IdentityUserRequest(uid: active))
            identity.clock.advance(by: .seconds(1))

            let cutoff = milliseconds(identity.clock.now().addingTimeInterval(-600))
            var pages: [[String]] = []
            var after: ExpiredGuest?
            repeat {
                let page = try await identity.call(
                    IdentityMethods.listExpiredGuests,
                    ListExpiredGuestsRequest(idleBeforeMilliseconds: cutoff, limit: 2, after: after)
                )
                pages.append(page.guests.map(\.uid))
                after = page.next
            } while after != nil
            #expect(pages.flatMap { $0 } == idle)
            #expect(pages.map(\.count) == [2, 2, 0])
            let all = try await identity.call(
                IdentityMethods.listExpiredGuests,
                ListExpiredGuestsRequest(idleBeforeMilliseconds: cutoff, limit: 10)
            )
            #expect(all.guests.map(\.uid) == idle && all.next == nil)
            #expect(
                all.guests.map(\.lastActivityAtMilliseconds) == all.guests.map(\.lastActivityAtMilliseconds).sorted()
            )
        }
    }

    @Test("Activity is written at most once per interval per user", arguments: TestEngine.allCases)
    func activityCoalescing(engine: TestEngine) async throws {
        try await withIdentity(engine) { identity in
            let guest = try await identity.newGuest()
            let created = milliseconds(identity.clock.now())
            func lastActivity() async throws -> UInt64 {
                try await identity.call(IdentityMethods.getUser, IdentityUserRequest(uid: guest.uid))
                    .lastActivityAtMilliseconds
            }
            identity.clock.advance(by: .seconds(100))
            try await identity.call(IdentityMethods.recordActivity, IdentityUserRequest(uid: guest.uid))
            #expect(try await lastActivity() == created)
            identity.clock.advance(by: .seconds(600))
            try await identity.call(IdentityMethods.recordActivity, IdentityUserRequest(uid: guest.uid))
            let written = milliseconds(identity.clock.now())
            #expect(try await lastActivity() == written)
            identity.clock.advance(by: .seconds(100))
            try await identity.call(IdentityMethods.recordActivity, IdentityUserRequest(uid: guest.uid))
            #expect(try await lastActivity() == written)
            #expect(
                await identity.status(IdentityMethods.recordActivity, IdentityUserRequest(uid: "unknown"))
                    == IdentityStatus.userNotFound
            )
        }
    }
}
