import FoyerAPI
import FoyerClient
import NIOCore
import Testing

@Suite("Guest journey through FoyerClient")
struct GuestJourneyTests {
    @Test("A guest writes until the quota says no, links an email and password, and keeps its uid and data")
    func guestUpgradesKeepingEverything() async throws {
        try await withStack { stack in
            try await stack.withClient { client in
                // Given a new guest
                let guest = try await client.signInAsGuest()
                #expect(guest.isAnonymous)
                #expect(await client.uid == guest.uid)

                // When it writes 20 documents, the 21st is refused with the counts
                for index in 1...20 {
                    try await client.put("notes", "note-\(index)", "text \(index)")
                }
                let denied = await expectError(.quotaExceeded) {
                    try await client.put("notes", "note-21", "text 21")
                }
                let quota = try #require(denied?.quotaExceeded)
                #expect(quota.counter == "documents")
                #expect(quota.limit == 20)
                #expect(quota.used == 20)
                #expect(quota.remaining == 0)
                #expect(quota.requested == 1)
                #expect(denied?.name == "quota-exceeded")
                #expect(try await client.get("notes", "note-21") == nil)

                // Then linking an email and password makes it a member with the same uid
                let email = uniqueEmail()
                let result = try await client.link(email: email, password: strongPassword)
                #expect(result.outcome == .linked)
                #expect(result.session?.uid == guest.uid)
                #expect(result.session?.isAnonymous == false)
                #expect(await client.session == result.session)

                // And the 21st document is now accepted, and all are there
                try await client.put("notes", "note-21", "text 21")
                let documents = try await client.listAll("notes")
                #expect(documents.count == 21)
                #expect(Set(documents.map(\.key)) == Set((1...21).map { "note-\($0)" }))
                #expect(try await client.get("notes", "note-7")?.text == "text 7")

                let me = try await client.me()
                #expect(me.user.uid == guest.uid)
                #expect(!me.user.isAnonymous)
                #expect(me.user.email == email)
                #expect(me.user.hasPassword)
                #expect(me.usage.plan == "member")
                let quotaNow = try await client.quota()
                #expect(quotaNow.counters.first { $0.counter == "documents" }?.used == 21)

                // And the member can sign in again from elsewhere, to the same uid
                try await stack.withClient { other in
                    let session = try await other.signIn(email: email, password: strongPassword)
                    #expect(session.uid == guest.uid)
                    #expect(try await other.exportAll().count == 21)
                }
            }
        }
    }

    @Test("Documents: versions, conditional writes, binary values, delete gives the quota back, paging")
    func documentOperations() async throws {
        try await withStack { stack in
            try await stack.withClient { client in
                try await client.signInAsGuest()
                let first = try await client.put("notes", "a", "one")
                #expect(first.version == 1)
                let second = try await client.put("notes", "a", "two", expectedVersion: 1)
                #expect(second.version == 2)
                let mismatch = await expectError(.versionMismatch) {
                    try await client.put("notes", "a", "three", expectedVersion: 1)
                }
                #expect(mismatch?.currentVersion == 2)

                try await client.put("blobs", "b", bytes: [0xFF, 0x00, 0xFE])
                let blob = try #require(try await client.get("blobs", "b"))
                #expect(blob.bytes == [0xFF, 0x00, 0xFE])
                #expect(blob.text == nil)

                let before = try await client.quota().counters.first { $0.counter == "documents" }?.used
                #expect(try await client.delete("blobs", "b"))
                #expect(try await !client.delete("blobs", "b"))
                let after = try await client.quota().counters.first { $0.counter == "documents" }?.used
                #expect(after == before.map { $0 - 1 })

                for index in 0..<5 { try await client.put("paged", "k\(index)", "v\(index)") }
                let page = try await client.list("paged", pageSize: 2)
                #expect(page.documents.map(\.key) == ["k0", "k1"])
                let next = try await client.list("paged", cursor: page.nextCursor, pageSize: 2)
                #expect(next.documents.map(\.key) == ["k2", "k3"])
                #expect(try await client.listAll("paged", pageSize: 2).count == 5)

                await expectError(.invalidCollection) { try await client.put("bad collection!", "k", "v") }
                await expectError(.invalidInput) { try await client.list("paged", pageSize: 0) }
            }
        }
    }

    @Test(
        "Rewrites are charged their growth and give back what they shrink; growing past the bytes limit is refused; racing first writes of one key count one document"
    )
    func bytesFollowRewrites() async throws {
        try await withStack { stack in
            try await stack.withClient { client in
                try await client.signInAsGuest()
                func used(_ counter: String) async throws -> UInt64? {
                    try await client.quota().counters.first { $0.counter == counter }?.used
                }
                try await client.put("notes", "a", bytes: [UInt8](repeating: 1, count: 1000))
                #expect(try await used("bytes") == 1000)
                try await client.put("notes", "a", bytes: [UInt8](repeating: 2, count: 3000))
                #expect(try await used("bytes") == 3000)
                try await client.put("notes", "a", bytes: [UInt8](repeating: 3, count: 500))
                #expect(try await used("bytes") == 500)
                #expect(try await used("documents") == 1)

                // The guest plan holds 1 MiB: five documents of 200,000 bytes leave 48,076.
                for index in 0..<5 {
                    try await client.put("big", "b\(index)", bytes: [UInt8](repeating: 4, count: 200_000))
                }
                #expect(try await used("bytes") == 1_000_500)
                await expectError(.quotaExceeded) {
                    try await client.put("notes", "a", bytes: [UInt8](repeating: 5, count: 100_000))
                }
                #expect(try await client.get("notes", "a")?.bytes.count == 500)
                #expect(try await used("bytes") == 1_000_500)
                #expect(try await client.delete("notes", "a"))
                #expect(try await used("bytes") == 1_000_000)
                #expect(try await used("documents") == 5)

                // Four first writes of one key at once: one document, the last value's bytes.
                try await withThrowingTaskGroup(of: Void.self) { group in
                    for index in 0..<4 {
                        group.addTask {
                            try await client.put("race", "k", bytes: [UInt8](repeating: UInt8(index), count: 100))
                        }
                    }
                    try await group.waitForAll()
                }
                #expect(try await used("documents") == 6)
                #expect(try await used("bytes") == 1_000_100)
                #expect(try await client.get("race", "k")?.version == 4)
            }
        }
    }

    @Test("A guest's import is refused members-only; a member's goes through")
    func importIsMembersOnly() async throws {
        try await withStack { stack in
            try await stack.withClient { client in
                try await client.signInAsGuest()
                let entries = [(key: "x", value: ByteBuffer(string: "1")), (key: "y", value: ByteBuffer(string: "2"))]
                let refused = await expectError(.membersOnly) { try await client.importDocuments("bulk", entries) }
                #expect(refused?.name == "members-only")
                try await client.link(email: uniqueEmail(), password: strongPassword)
                #expect(try await client.importDocuments("bulk", entries) == 2)
                #expect(try await client.listAll("bulk").count == 2)
            }
        }
    }

    @Test("Calls without a session fail not-signed-in before reaching the gateway")
    func notSignedIn() async throws {
        try await withStack { stack in
            try await stack.withClient { client in
                let error = await expectError(.notSignedIn) { try await client.me() }
                #expect(error?.status == nil)
                #expect(error?.isAuthenticationFailure == true)
            }
        }
    }
}
