import FoyerAPI
import FoyerClient
import FoyerGuestQuota
import Testing

/// The counters an app defines in its plans, through `FoyerClient` on both of the gateway's transports.
@Suite("App-defined counters through FoyerClient")
struct AppCounterClientTests {
    enum Transport: String, CaseIterable, Sendable { case binary, http }

    /// The stories' plans: a guest may make 20 transactions and 3 uploads; a member many more. A member may keep 2
    /// notes (`documents:notes`), a guest as many as its `documents` allow.
    static let options: StackOptions = {
        var options = StackOptions()
        options.plans = PlanCatalog(plans: [
            "guest": Plan(
                counters: ["documents": 20, "bytes": 1 << 20, "transactions": 20, "uploads": 3],
                features: ["import": false]
            ),
            "member": Plan(
                counters: [
                    "documents": 1000, "bytes": 1 << 30, "transactions": 100, "uploads": 50, "documents:notes": 2,
                ],
                features: ["import": true]
            ),
        ])
        return options
    }()

    /// Runs `body` with a client of the stack on `transport`.
    private func withClient(_ transport: Transport, _ body: (FoyerClient) async throws -> Void) async throws {
        try await withHTTPEdge(options: Self.options) { edge in
            switch transport {
            case .binary: try await edge.stack.withClient(body)
            case .http: try await edge.withHTTPClient(body)
            }
        }
    }

    @Test(
        "consume within the limit, refused past it with the counts, release, and a retried key counts once",
        arguments: Transport.allCases
    )
    func consumeAndRelease(transport: Transport) async throws {
        try await withClient(transport) { client in
            _ = try await client.signInAsGuest()
            let first = try await client.consume("uploads", idempotencyKey: "upload-1")
            #expect(first == CounterUsage(counter: "uploads", limit: 3, used: 1))
            // The same key again (a retry whose answer was lost) counts nothing more.
            #expect(try await client.consume("uploads", idempotencyKey: "upload-1").used == 1)
            #expect(try await client.consume("uploads", amount: 2, idempotencyKey: "upload-2").remaining == 0)

            let denied = await expectError(.quotaExceeded) { try await client.consume("uploads") }
            let quota = try #require(denied?.quotaExceeded)
            #expect(quota.counter == "uploads")
            #expect(quota.limit == 3)
            #expect(quota.used == 3)
            #expect(quota.remaining == 0)
            #expect(quota.requested == 1)

            // A release's key is apart from a consume's: "upload-1" gives back one, once.
            #expect(try await client.release("uploads", idempotencyKey: "upload-1").used == 2)
            #expect(try await client.release("uploads", idempotencyKey: "upload-1").used == 2)
            #expect(try await client.consume("uploads", idempotencyKey: "upload-3").used == 3)

            let usage = try await client.quota()
            #expect(Set(usage.counters.map(\.counter)) == ["bytes", "documents", "transactions", "uploads"])
            #expect(
                usage.counters.first { $0.counter == "transactions" }
                    == CounterUsage(counter: "transactions", limit: 20, used: 0)
            )
        }
    }

    @Test(
        "the gateway's own counters are refused, an unknown counter is unknown, a key reused for another amount is refused",
        arguments: Transport.allCases
    )
    func refusals(transport: Transport) async throws {
        try await withClient(transport) { client in
            _ = try await client.signInAsGuest()
            try await client.put("notes", "n1", "text")
            for counter in ["documents", "bytes", "documents:notes"] {
                await expectError(.counterReserved) { try await client.consume(counter) }
                await expectError(.counterReserved) { try await client.release(counter, amount: 1) }
            }
            #expect(try await client.quota().counters.first { $0.counter == "documents" }?.used == 1)
            await expectError(.unknownCounter) { try await client.consume("photos") }
            await expectError(.unknownCounter) { try await client.release("photos") }
            // A guest that never consumed has nothing to give back: the counter answers as it stands.
            #expect(try await client.release("transactions", amount: 5).used == 0)
            _ = try await client.consume("transactions", amount: 2, idempotencyKey: "tx")
            await expectError(.operationReused) {
                try await client.consume("transactions", amount: 3, idempotencyKey: "tx")
            }
        }
    }

    @Test(
        "a guest makes 20 transactions, is refused the 21st, links, and has the member's limit with 20 used",
        arguments: Transport.allCases
    )
    func guestToMember(transport: Transport) async throws {
        try await withClient(transport) { client in
            _ = try await client.signInAsGuest()
            for index in 1...20 { _ = try await client.consume("transactions", idempotencyKey: "tx-\(index)") }
            await expectError(.quotaExceeded) { try await client.consume("transactions", idempotencyKey: "tx-21") }

            _ = try await client.link(email: uniqueEmail(), password: strongPassword)
            let transactions = try await client.quota().counters.first { $0.counter == "transactions" }
            #expect(transactions == CounterUsage(counter: "transactions", limit: 100, used: 20))
            #expect(try await client.consume("transactions", idempotencyKey: "tx-21").used == 21)
        }
    }

    @Test(
        "a plan's documents:<collection> limits that collection's puts, and a delete gives one back",
        arguments: Transport.allCases
    )
    func perCollectionLimit(transport: Transport) async throws {
        try await withClient(transport) { client in
            _ = try await client.signInAsGuest()
            // The guest plan does not name documents:notes: only documents limits the guest.
            for index in 1...3 { try await client.put("notes", "n\(index)", "text") }
            _ = try await client.link(email: uniqueEmail(), password: strongPassword)
            // The member's plan allows 2 notes; the 3 the guest wrote were not counted under it (it had no limit).
            try await client.put("notes", "n4", "text")
            try await client.put("notes", "n5", "text")
            let denied = await expectError(.quotaExceeded) { try await client.put("notes", "n6", "text") }
            #expect(denied?.quotaExceeded?.counter == "documents:notes")
            try await client.put("todos", "t1", "other collections are not limited by it")
            #expect(try await client.delete("notes", "n5"))
            try await client.put("notes", "n6", "text")
            let notes = try await client.quota().counters.first { $0.counter == "documents:notes" }
            #expect(notes == CounterUsage(counter: "documents:notes", limit: 2, used: 2))
        }
    }

    @Test("many clients racing for the last transactions: exactly the limit succeeds")
    func racingAtTheLimit() async throws {
        try await withHTTPEdge(options: Self.options) { edge in
            let session = try await edge.stack.withClient { try await $0.signInAsGuest() }
            let successes = try await withThrowingTaskGroup(of: Bool.self) { group in
                for index in 0..<40 {
                    group.addTask {
                        try await edge.stack.withClient(session: session) { client in
                            do {
                                _ = try await client.consume("transactions", idempotencyKey: "race-\(index)")
                                return true
                            } catch let error as FoyerError where error == .quotaExceeded {
                                return false
                            }
                        }
                    }
                }
                return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
            }
            #expect(successes == 20)
        }
    }
}
