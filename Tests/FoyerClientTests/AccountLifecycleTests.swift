import FoyerAPI
import FoyerClient
import Testing

@Suite("Delete-everything and sign-out through FoyerClient")
struct AccountLifecycleTests {
    @Test("delete-account leaves nothing: documents, quota, sessions, sign-in; a deletion record is kept")
    func deleteAccountLeavesNothing() async throws {
        try await withStack { stack in
            try await stack.withClient { client in
                let guest = try await client.signInAsGuest()
                for index in 0..<5 { try await client.put("notes", "n\(index)", "v\(index)") }
                let email = uniqueEmail()
                try await client.link(email: email, password: strongPassword)
                let session = try #require(await client.session)

                let deleted = try await client.deleteAccount()
                #expect(deleted == 5)
                #expect(await client.session == nil)

                try await stack.withClient(session: session) { old async throws in
                    // The old token no longer works for anything: its sessions were revoked, and the gateway
                    // forgot what it knew of them when the deletion ran.
                    #expect(await anyError { try await old.me() }?.isAuthenticationFailure == true)
                    #expect(await anyError { try await old.quota() }?.isAuthenticationFailure == true)
                    // The refresh token went with the user: unknown, as the documents say.
                    await expectError(.invalidToken) { try await old.refreshSession() }
                    #expect(await anyError { try await old.deleteAccount() }?.isAuthenticationFailure == true)
                    #expect(await anyError { try await old.get("notes", "n1") }?.isAuthenticationFailure == true)
                    #expect(await anyError { try await old.listAll("notes") }?.isAuthenticationFailure == true)
                    #expect(await anyError { try await old.exportAll() }?.isAuthenticationFailure == true)
                    #expect(
                        await anyError { try await old.put("notes", "again", "x") }?.isAuthenticationFailure == true
                    )
                }
                // The email is free again: signing in fails, a new sign-up gets a new uid.
                await expectError(.invalidCredentials) {
                    try await client.signIn(email: email, password: strongPassword)
                }
                try await client.signInAsGuest()
                let fresh = try await client.link(email: email, password: strongPassword)
                #expect(fresh.outcome == .linked)
                #expect(fresh.session?.uid != guest.uid)
            }
            let cleanup = stack.cleanupClient()
            let records = try await cleanup.deletions(limit: 10)
            await cleanup.shutdown()
            #expect(records.contains { $0.reason == .userRequest })
            #expect(!records.contains { $0.pseudonymousID.contains("-") && $0.pseudonymousID.count == 22 })
        }
    }

    @Test("A guest's sign-out deletes the guest with its data")
    func guestSignOutDeletes() async throws {
        try await withStack { stack in
            try await stack.withClient { client in
                let guest = try await client.signInAsGuest()
                try await client.put("notes", "n", "v")
                #expect(try await client.signOut())
                #expect(await client.session == nil)
                try await stack.withClient(session: guest) { old async throws in
                    // The refresh token went with the user: unknown, as the documents say.
                    await expectError(.invalidToken) { try await old.refreshSession() }
                    #expect(await anyError { try await old.quota() }?.isAuthenticationFailure == true)
                    #expect(await anyError { try await old.get("notes", "n") }?.isAuthenticationFailure == true)
                }
            }
        }
    }

    @Test("A member's sign-out revokes the session only; the account and its data stay")
    func memberSignOutRevokes() async throws {
        try await withStack { stack in
            try await stack.withClient { client in
                let guest = try await client.signInAsGuest()
                try await client.put("notes", "n", "kept")
                let email = uniqueEmail()
                try await client.link(email: email, password: strongPassword)
                let session = try #require(await client.session)
                #expect(try await !client.signOut())
                #expect(await client.session == nil)
                try await stack.withClient(session: session) { old async throws in
                    _ = await expectError(.tokenRevoked) { try await old.refreshSession() }
                }
                let again = try await client.signIn(email: email, password: strongPassword)
                #expect(again.uid == guest.uid)
                #expect(try await client.get("notes", "n")?.text == "kept")
            }
        }
    }

    @Test("Retrying a deletion with the same operation id answers the first report")
    func deletionRetryIsIdempotent() async throws {
        try await withStack { stack in
            try await stack.withClient { client in
                let guest = try await client.signInAsGuest()
                try await client.put("notes", "n", "v")
                let operationID = OperationID.make()
                #expect(try await client.deleteAccount(operationID: operationID) == 1)
                // A client that lost the answer retries with the same id and the same (now revoked) token.
                await client.setSession(guest)
                #expect(try await client.deleteAccount(operationID: operationID) == 1)
            }
        }
    }
}
