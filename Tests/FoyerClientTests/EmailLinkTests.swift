import FoyerAPI
import FoyerClient
import Testing

@Suite("Email links through FoyerClient")
struct EmailLinkTests {
    /// The token of the newest email to `email` in the outbox.
    private func token(to email: String, _ client: FoyerClient) async throws -> String {
        let message = try #require(try await client.outbox(recipient: email, limit: 1).first)
        return EmailLinkVerifier.token(fromLink: message.body)
    }

    @Test("A guest links an email by link: same uid, email verified")
    func guestLinksByEmail() async throws {
        try await withStack { stack in
            try await stack.withClient { client in
                let guest = try await client.signInAsGuest()
                try await client.put("notes", "n", "v")
                let email = uniqueEmail()
                let verifier = try await client.sendEmailLink(to: email, purpose: .link)
                let token = try await token(to: email, client)

                // The link without the verifier (a scanner fetching the URL) gets nowhere.
                await expectError(.verifierMismatch) {
                    try await client.completeEmailLink(token: token, verifier: EmailLinkVerifier(), purpose: .link)
                }
                let result = try await client.completeEmailLink(token: token, verifier: verifier, purpose: .link)
                #expect(result.outcome == .linked)
                #expect(result.session.uid == guest.uid)
                let me = try await client.me()
                #expect(me.user.email == email)
                #expect(me.user.emailVerified)
                #expect(!me.user.isAnonymous)
                #expect(try await client.get("notes", "n")?.text == "v")
            }
        }
    }

    @Test("A sign-in link signs in to the account with that address")
    func signInByEmail() async throws {
        try await withStack { stack in
            let email = uniqueEmail()
            let uid = try await stack.withClient { client in
                try await client.signInAsGuest()
                return try await client.link(email: email, password: strongPassword).session.uid
            }
            try await stack.withClient { client in
                let verifier = try await client.sendEmailLink(to: email, purpose: .signIn)
                let link = try #require(try await client.outbox(recipient: email, limit: 1).first).body
                let result = try await client.completeEmailLink(token: link, verifier: verifier, purpose: .signIn)
                #expect(result.session.uid == uid)
                #expect(await client.uid == uid)
                await expectError(.tokenAlreadyUsed) {
                    try await client.completeEmailLink(token: link, verifier: verifier, purpose: .signIn)
                }
            }
        }
    }

    @Test("A link email needs a session")
    func linkNeedsSession() async throws {
        try await withStack { stack in
            try await stack.withClient { client in
                _ = await expectError(.notSignedIn) {
                    try await client.sendEmailLink(to: uniqueEmail(), purpose: .link)
                }
            }
        }
    }
}
