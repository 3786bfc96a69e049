import Foundation
import Testing

@Suite("TTL clean-up of the real executables, with an injected clock")
struct TTLTests {
    @Test("A guest idle past the TTL is deleted with everything it owned; a recent guest and a member stay")
    func idleGuestIsDeleted() async throws {
        try await withRunningStack { stack in
            // Given a guest with documents and a member, both last active today
            let idle = try await stack.withClient { client async throws in
                let guest = try await client.signInAsGuest()
                for index in 0..<3 { try await client.put("notes", "n\(index)", "idle \(index)") }
                return guest.uid
            }
            let member = try await makeAccount(stack, keys: ["kept"])

            // When every clock moves 31 days on (the TTL is 30) and a new guest signs in then
            try stack.setClockOffset(seconds: 31 * 86_400)
            let recent = try await stack.withClient { client async throws in
                let guest = try await client.signInAsGuest()
                try await client.put("notes", "fresh", "recent")
                return guest.uid
            }
            let recordsBefore = try await stack.databases.deletionRecordCount()
            let report = try await stack.sweep()

            // Then only the idle guest is gone, everywhere, with one deletion record
            #expect(report.expiredGuests == 1)
            #expect(report.errors == 0, "\(report)")
            try await expectGone(idle, stack)
            #expect(try await stack.databases.documentKeys(of: recent) == ["notes/fresh"])
            #expect(try await stack.databases.state(of: recent) == "active")
            #expect(try await stack.databases.documentKeys(of: member.uid) == ["notes/kept"])
            #expect(try await stack.databases.state(of: member.uid) == "active")
            #expect(try await stack.databases.deletionRecordCount() == recordsBefore + 1)
            #expect(try await stack.databases.claimCount() == 0)
            #expect(try await stack.sweep().expiredGuests == 0)
        }
    }
}
