import FoyerStorage
import SQLKit
import Testing

/// The invariant check (Invariants.swift) sees each kind of breach: rows written straight into an idle stack's
/// databases that break one invariant each, every one reported with the uid that breaks it.
@Suite("The invariant check reports what breaks docs/INVARIANTS.md")
struct InvariantCheckTests {
    @Test("A clean stack passes; each planted breach is reported with its uid")
    func plantedBreaches() async throws {
        try await withRunningStack { stack in
            // Given a guest with two documents and a member with one, at rest
            let guest = try await stack.withClient { client async throws in
                let guest = try await client.signInAsGuest()
                for key in ["p1", "p2"] { try await client.put("notes", key, "planted \(key)") }
                return guest.uid
            }
            let member = try await makeAccount(stack, keys: ["m1"])
            let databases = stack.databases
            #expect(try await databases.invariantViolations(InvariantScope(exactCounters: true)).isEmpty)

            // When a document is written for a uid identity never had (I1, and I2: nothing counts it)
            try await databases.userData.transaction { sql in
                try await sql.raw(
                    """
                    INSERT INTO ud_documents (uid, collection, doc_key, body, body_size, version, updated_at)
                    VALUES ('ghost-uid', 'notes', 'x', \(SQLBytes([1, 2, 3])), 3, 1, 0)
                    """
                ).run()
            }
            // ...the guest's counter drops below its documents (I2)...
            try await databases.guestQuota.transaction { sql in
                try await sql.raw(
                    "UPDATE gq_usage SET used = 1 WHERE uid = \(bind: guest) AND counter = 'documents'"
                ).run()
            }
            // ...and the member is left `deleting` without an operation (I3, I5)
            try await databases.identity.transaction { sql in
                try await sql.raw("UPDATE identity_users SET state = 'deleting' WHERE uid = \(bind: member.uid)")
                    .run()
            }
            // ...and the guest is said to be deleted while it is live (I4, I6)
            let violations = try await databases.invariantViolations(InvariantScope(deleted: [guest]))

            // Then each breach is reported, naming its uid
            let found = Set(violations.map { "\($0.invariant.rawValue) \($0.uid)" })
            let expected: Set<String> = [
                "\(Invariant.documentHasUser.rawValue) ghost-uid",
                "\(Invariant.countersCoverDocuments.rawValue) ghost-uid",
                "\(Invariant.countersCoverDocuments.rawValue) \(guest)",
                "\(Invariant.sagasEnd.rawValue) \(member.uid)",
                "\(Invariant.oneState.rawValue) \(member.uid)",
                "\(Invariant.nothingOfDeleted.rawValue) \(guest)",
                "\(Invariant.recordedOnce.rawValue) \(guest)",
            ]
            #expect(found == expected, "\(violations)")

            // And a deletion recorded twice for the same reason is reported (I6)
            try await databases.cleanup.transaction { sql in
                for operation in ["op-a", "op-b"] {
                    try await sql.raw(
                        """
                        INSERT INTO cleanup_deletions (operation_key, subject, reason, deleted_at)
                        VALUES (\(bind: operation), 'twice', 0, 0)
                        """
                    ).run()
                }
            }
            let twice = try await databases.invariantViolations().filter { $0.invariant == .recordedOnce }
            #expect(twice.map(\.uid) == ["twice"], "\(twice)")

            // Put things back, so the services stop cleanly on a consistent store
            try await databases.identity.transaction { sql in
                try await sql.raw("UPDATE identity_users SET state = 'active' WHERE uid = \(bind: member.uid)").run()
            }
        }
    }
}
