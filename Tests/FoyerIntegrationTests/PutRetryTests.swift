import FoyerAPI
import FoyerClient
import NIOCore
import Testing

// Item 34 of the security checklist through the real executables: a retried document put (same idempotency key)
// answers the first result and neither writes nor charges the quota again, even after the document changed.

func retriedPutAnswersFirstResult(_ stack: RunningStack) async throws {
    try await stack.withClient { client async throws in
        let guest = try await client.signInAsGuest()
        let first = try await client.put("notes", "a", "one", idempotencyKey: "put-a-1")
        #expect(first.version == 1)
        // The document changes (and grows) under another key.
        let second = try await client.put("notes", "a", "three", idempotencyKey: "put-a-2")
        #expect(second.version == 2)

        // The first put retried: its own answer, no write, no charge, no release.
        #expect(try await client.put("notes", "a", "one", idempotencyKey: "put-a-1") == first)
        #expect(try await client.get("notes", "a")?.text == "three")
        #expect(try await client.get("notes", "a")?.version == 2)
        #expect(try await stack.databases.counter("documents", of: guest.uid) == 1)
        #expect(try await stack.databases.counter("bytes", of: guest.uid) == 5)

        // A put whose document was deleted since: retried, it does not bring the document back nor charge it.
        let created = try await client.put("notes", "b", "bee", idempotencyKey: "put-b-1")
        #expect(try await client.delete("notes", "b"))
        #expect(try await client.put("notes", "b", "bee", idempotencyKey: "put-b-1") == created)
        #expect(try await client.get("notes", "b") == nil)
        #expect(try await stack.databases.counter("documents", of: guest.uid) == 1)
        #expect(try await stack.databases.counter("bytes", of: guest.uid) == 5)

        // The same key for another write is refused.
        let reused = await foyerFailure { try await client.put("notes", "a", "other", idempotencyKey: "put-a-1") }
        #expect(reused == .operationReused)
        #expect(try await client.get("notes", "a")?.text == "three")

        // An import retried writes each document once.
        _ = try await client.link(email: uniqueEmail("put"), password: password)
        let documents: [(key: String, value: ByteBuffer)] = [
            (key: "i1", value: ByteBuffer(string: "first")), (key: "i2", value: ByteBuffer(string: "second")),
        ]
        #expect(try await client.importDocuments("imports", documents, idempotencyKey: "import-1") == 2)
        #expect(try await client.importDocuments("imports", documents, idempotencyKey: "import-1") == 2)
        #expect(try await client.get("imports", "i1")?.version == 1)
        #expect(try await client.get("imports", "i2")?.version == 1)
    }
}

@Suite("A retried document put answers the first result (SQLite)", .sharedStack())
struct PutRetryTests {
    @Test("through the gateway: no second write, no second charge, even after the document changed or went")
    func retried() async throws { try await retriedPutAnswersFirstResult(SharedStack.get()) }
}

@Suite(
    "A retried document put answers the first result (PostgreSQL)",
    .enabled(
        if: postgresConfigured,
        "FOYER_TEST_POSTGRES_URL is not set; start one with scripts/throwaway-postgres.sh"
    ),
    .sharedStack(RunningStackOptions(engine: .postgres))
)
struct PostgresPutRetryTests {
    @Test("through the gateway") func retried() async throws {
        try await retriedPutAnswersFirstResult(SharedStack.get())
    }
}
