import Foundation
import FoyerAPI
import FoyerCrypto
import FoyerRPC
import FoyerStorage
import FoyerTestSupport
import FoyerWire
import SQLKit
import Testing

@Suite("Admin keys and the audit log")
struct AdminKeyTests {
    private func milliseconds(_ date: Date) -> UInt64 { UInt64(date.timeIntervalSince1970 * 1000) }

    @Test(
        "A key is made from the CSPRNG, kept as its SHA-256, verified, listed newest first and revoked once",
        arguments: TestEngine.allCases
    )
    func lifecycle(engine: TestEngine) async throws {
        try await withIdentity(engine) { identity in
            let created = try await identity.call(
                IdentityMethods.createAdminKey,
                CreateAdminKeyRequest(name: "ops@example.com")
            )
            let keyID = created.info.keyID
            #expect(created.key.hasPrefix("foyer_admin_\(keyID)_") && created.key.utf8.count == 72)
            #expect(keyID.utf8.count == 16 && keyID.allSatisfy { $0.isHexDigit && !$0.isUppercase })
            #expect(created.info.name == "ops@example.com" && created.info.createdBy == "cluster-secret")
            #expect(created.info.revokedAtMilliseconds == nil && created.info.lastUsedAtMilliseconds == nil)
            let stored = try await identity.database.withConnection { sql in
                try await sql.raw("SELECT key_hash FROM identity_admin_keys WHERE key_id = \(bind: keyID)").first()!
                    .decodeBytes(column: "key_hash")
            }
            #expect(stored == SHA256.hash(Array(created.key.utf8)))

            // Verified: the use is recorded, then at most once a minute.
            let first = milliseconds(identity.clock.now())
            let verified = try await identity.call(
                IdentityMethods.verifyAdminKey,
                VerifyAdminKeyRequest(key: created.key)
            )
            #expect(verified.keyID == keyID && verified.lastUsedAtMilliseconds == first)
            identity.clock.advance(by: .seconds(59))
            let again = try await identity.call(IdentityMethods.verifyAdminKey, VerifyAdminKeyRequest(key: created.key))
            #expect(again.lastUsedAtMilliseconds == first)
            identity.clock.advance(by: .seconds(2))
            let later = try await identity.call(IdentityMethods.verifyAdminKey, VerifyAdminKeyRequest(key: created.key))
            #expect(later.lastUsedAtMilliseconds == milliseconds(identity.clock.now()))

            // A second key, made by the first: listed first.
            identity.clock.advance(by: .seconds(1))
            let second = try await identity.call(
                IdentityMethods.createAdminKey,
                CreateAdminKeyRequest(name: "ops@example.com", createdBy: keyID)
            )
            #expect(second.info.keyID != keyID && second.key != created.key && second.info.createdBy == keyID)
            let listed = try await identity.call(IdentityMethods.listAdminKeys, Empty())
            #expect(listed.keys.map(\.keyID) == [second.info.keyID, keyID])
            #expect(listed.keys[1] == later)

            // Revoked: the first time stays; the key is refused; the other key still works.
            let revokedAt = milliseconds(identity.clock.now())
            let revoked = try await identity.call(IdentityMethods.revokeAdminKey, AdminKeyRequest(keyID: keyID))
            #expect(revoked.revokedAtMilliseconds == revokedAt)
            identity.clock.advance(by: .seconds(5))
            let twice = try await identity.call(IdentityMethods.revokeAdminKey, AdminKeyRequest(keyID: keyID))
            #expect(twice.revokedAtMilliseconds == revokedAt)
            #expect(
                await identity.status(IdentityMethods.verifyAdminKey, VerifyAdminKeyRequest(key: created.key))
                    == .unauthenticated
            )
            _ = try await identity.call(IdentityMethods.verifyAdminKey, VerifyAdminKeyRequest(key: second.key))
            #expect(
                await identity.status(IdentityMethods.revokeAdminKey, AdminKeyRequest(keyID: "0123456789abcdef"))
                    == .notFound
            )
        }
    }

    @Test(
        "Malformed, unknown, wrongly keyed and revoked keys are refused with one message",
        arguments: TestEngine.allCases
    )
    func refusals(engine: TestEngine) async throws {
        try await withIdentity(engine) { identity in
            let key = try await identity.call(IdentityMethods.createAdminKey, CreateAdminKeyRequest(name: "a"))
            let revoked = try await identity.call(IdentityMethods.createAdminKey, CreateAdminKeyRequest(name: "b"))
            _ = try await identity.call(IdentityMethods.revokeAdminKey, AdminKeyRequest(keyID: revoked.info.keyID))
            let secret = String(key.key.dropFirst("foyer_admin_".count + 17))
            let otherSecret = Base64URL.encode(SecureRandom.bytes(count: 32))
            let refused = [
                "",
                "foyer_admin_",
                String(key.key.dropLast()),
                key.key + "A",
                key.key.uppercased(),
                "foyer_admin_\(key.info.keyID.uppercased())_\(secret)",
                "foyer_admin_\(key.info.keyID)-\(secret)",
                "foyer_admin_\(key.info.keyID)_\(String(secret.dropLast()))=",
                "foyer_admin_0123456789abcdef_\(secret)",  // a foreign key id
                "foyer_admin_\(key.info.keyID)_\(otherSecret)",  // the right id, another secret
                revoked.key,
            ]
            var messages: Set<String> = []
            for text in refused {
                let error = try await rpcError {
                    try await identity.call(IdentityMethods.verifyAdminKey, VerifyAdminKeyRequest(key: text))
                }
                #expect(error.status == .unauthenticated, "\(text)")
                messages.insert(error.message)
            }
            #expect(messages == ["the admin key is not valid"])
        }
    }

    @Test("Names are labels of A-Z a-z 0-9 . _ @ -; other names are refused", arguments: [TestEngine.sqlite])
    func names(engine: TestEngine) async throws {
        try await withIdentity(engine) { identity in
            for name in ["", "has space", "ünï", String(repeating: "n", count: 65), "a/b"] {
                #expect(
                    await identity.status(IdentityMethods.createAdminKey, CreateAdminKeyRequest(name: name))
                        == .invalidArgument,
                    "\(name)"
                )
            }
            let longest = String(repeating: "n", count: 64)
            let created = try await identity.call(IdentityMethods.createAdminKey, CreateAdminKeyRequest(name: longest))
            #expect(created.info.name == longest)
        }
    }

    @Test(
        "At most 1000 keys: the next is refused as resource-exhausted until maintenance removes a long-revoked one",
        arguments: TestEngine.allCases
    )
    func limit(engine: TestEngine) async throws {
        try await withIdentity(engine) { identity in
            let first = try await identity.call(IdentityMethods.createAdminKey, CreateAdminKeyRequest(name: "first"))
            let now = identity.clock.now().timeIntervalSince1970
            try await identity.database.transaction { sql in
                for index in 1..<(IdentityLimits.adminKeysCountMax - 1) {
                    try await sql.raw(
                        """
                        INSERT INTO identity_admin_keys (key_id, key_hash, name, created_at, created_by)
                        VALUES (\(bind: String(format: "f%015x", index)), \(SQLBytes(SHA256.hash([UInt8(index & 0xFF)]))),
                            'filler', \(bind: Int64(now * 1_000_000)), 'cluster-secret')
                        """
                    ).run()
                }
            }
            identity.clock.advance(by: .seconds(1))
            let last = try await identity.call(IdentityMethods.createAdminKey, CreateAdminKeyRequest(name: "last"))
            #expect(try await identity.count("identity_admin_keys") == IdentityLimits.adminKeysCountMax)
            let refusal = try await rpcError {
                try await identity.call(IdentityMethods.createAdminKey, CreateAdminKeyRequest(name: "one-too-many"))
            }
            #expect(refusal.status == .resourceExhausted && refusal.message.contains("1000 admin keys"))
            let listed = try await identity.call(IdentityMethods.listAdminKeys, Empty())
            #expect(listed.keys.count == IdentityLimits.adminKeysCountMax)
            #expect(listed.keys.first?.keyID == last.info.keyID)

            // A revoked key still counts; 90 days after its revocation maintenance removes it.
            _ = try await identity.call(IdentityMethods.revokeAdminKey, AdminKeyRequest(keyID: first.info.keyID))
            identity.clock.advance(by: .seconds(90 * 86_400 - 1))
            try await identity.service.runMaintenance()
            #expect(
                await identity.status(IdentityMethods.createAdminKey, CreateAdminKeyRequest(name: "x"))
                    == .resourceExhausted
            )
            identity.clock.advance(by: .seconds(2))
            try await identity.service.runMaintenance()
            _ = try await identity.call(IdentityMethods.createAdminKey, CreateAdminKeyRequest(name: "x"))
            #expect(try await identity.count("identity_admin_keys", where: "key_id", is: first.info.keyID) == 0)
        }
    }

    @Test(
        "Audit entries: who, what, on what and how it ended (the first outcome stays), listed newest first in pages",
        arguments: TestEngine.allCases
    )
    func audit(engine: TestEngine) async throws {
        try await withIdentity(engine) { identity in
            let key = try await identity.call(IdentityMethods.createAdminKey, CreateAdminKeyRequest(name: "alice"))
            var ids: [UInt64] = []
            for index in 0..<5 {
                let start = AdminActionStart(
                    keyID: index == 4 ? "cluster-secret" : key.info.keyID,
                    action: "user.delete",
                    target: index == 3 ? nil : "uid-\(index)"
                )
                ids.append(try await identity.call(IdentityMethods.beginAdminAction, start).id)
                identity.clock.advance(by: .seconds(1))
            }
            #expect(ids == ids.sorted() && Set(ids).count == 5)
            try await identity.call(IdentityMethods.endAdminAction, AdminActionEnd(id: ids[0], outcome: "ok"))
            try await identity.call(IdentityMethods.endAdminAction, AdminActionEnd(id: ids[0], outcome: "internal"))
            try await identity.call(IdentityMethods.endAdminAction, AdminActionEnd(id: ids[2], outcome: "not-found"))
            #expect(
                await identity.status(IdentityMethods.endAdminAction, AdminActionEnd(id: ids[4] + 100, outcome: "ok"))
                    == .notFound
            )
            #expect(
                await identity.status(
                    IdentityMethods.beginAdminAction,
                    AdminActionStart(keyID: "0123456789abcdef", action: "user.delete")
                ) == .notFound
            )

            var pages: [[AdminActionRecord]] = []
            var before: UInt64?
            repeat {
                let page = try await identity.call(
                    IdentityMethods.listAdminActions,
                    ListAdminActionsRequest(before: before, limit: 2)
                )
                pages.append(page.actions)
                before = page.next
            } while before != nil
            #expect(pages.map(\.count) == [2, 2, 1])
            let listed = pages.flatMap { $0 }
            #expect(listed.map(\.id) == ids.reversed())
            #expect(listed.map(\.outcome) == [nil, nil, "not-found", nil, "ok"])
            #expect(listed.map(\.keyName) == ["cluster-secret", "alice", "alice", "alice", "alice"])
            #expect(listed.map(\.target) == ["uid-4", nil, "uid-2", "uid-1", "uid-0"])
            #expect(listed.allSatisfy { $0.action == "user.delete" })
            #expect(listed.last?.atMilliseconds == listed.first.map { $0.atMilliseconds - 4000 })
            let one = try await identity.call(IdentityMethods.listAdminActions, ListAdminActionsRequest(limit: 5))
            #expect(one.actions == listed && one.next == nil)

            // Entries are kept 400 days: the two that began more than that ago go at the next maintenance.
            identity.clock.advance(by: .seconds(400 * 86_400 - 3))
            try await identity.service.runMaintenance()
            let kept = try await identity.call(IdentityMethods.listAdminActions, ListAdminActionsRequest(limit: 5))
            #expect(kept.actions.map(\.id) == Array(ids.suffix(3).reversed()))
        }
    }
}
