import FoyerAPI
import FoyerClient
import FoyerRPC
import FoyerTestSupport
import FoyerWire
import Testing

@Suite("Email links through FoyerClient")
struct EmailLinkTests {
    /// The token of the newest email to `email` in identity's outbox (read on identity's listener with the
    /// cluster secret, as an operator does; the gateway has no way to it).
    private func token(to email: String, _ stack: Stack) async throws -> String {
        let message = try #require(try await stack.outbox(to: email, limit: 1).first)
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
                let token = try await token(to: email, stack)

                // The link without the verifier (a scanner fetching the URL) gets nowhere.
                await expectError(.verifierMismatch) {
                    try await client.completeEmailLink(token: token, verifier: EmailLinkVerifier(), purpose: .link)
                }
                let result = try await client.completeEmailLink(token: token, verifier: verifier, purpose: .link)
                #expect(result.outcome == .linked)
                #expect(result.session?.uid == guest.uid)
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
                return try await client.link(email: email, password: strongPassword).session?.uid
            }
            try await stack.withClient { client in
                let verifier = try await client.sendEmailLink(to: email, purpose: .signIn)
                let link = try #require(try await stack.outbox(to: email, limit: 1).first).body
                let result = try await client.completeEmailLink(token: link, verifier: verifier, purpose: .signIn)
                #expect(result.session?.uid == uid)
                #expect(await client.uid == uid)
                await expectError(.tokenAlreadyUsed) {
                    try await client.completeEmailLink(token: link, verifier: verifier, purpose: .signIn)
                }
            }
        }
    }

    @Test("No client reaches the outbox: the gateway's 0x0531 is gone, identity asks for the cluster secret")
    func outboxIsOperatorsOnly() async throws {
        try await withStack { stack in
            let email = uniqueEmail()
            try await stack.withClient { client in
                _ = try await client.sendEmailLink(to: email, purpose: .signIn)
            }
            // What `gateway.outbox` was: a client-facing read of live sign-in links.
            let retired = RPCMethod<ListOutboxRequest, OutboxMessages>(
                id: 0x0531,
                name: "gateway.outbox",
                idempotent: true
            )
            let gatewayError = await rpcFailure(port: stack.gatewayPort, service: "gateway", secret: nil) { client in
                try await client.call(retired, ListOutboxRequest(recipient: email, limit: 1))
            }
            #expect(gatewayError?.status == .unimplemented)
            let withoutSecret = await rpcFailure(port: stack.identityPort, service: "identity", secret: nil) { client in
                try await client.call(IdentityMethods.listOutbox, ListOutboxRequest(recipient: email, limit: 1))
            }
            #expect(withoutSecret != nil, "identity's listener refuses a client without the cluster secret")
            #expect(try await stack.outbox(to: email, limit: 1).count == 1, "the operator's path works")
        }
    }

    /// Calls `body` with a client of 127.0.0.1:`port` that makes one attempt; the RPCError it failed with.
    private func rpcFailure(
        port: Int,
        service: String,
        secret: ClusterSecret?,
        _ body: (RPCClient) async throws -> OutboxMessages
    ) async -> RPCError? {
        let client = testClient(port: port, service: service, secret: secret) {
            $0.maxAttempts = 1
            $0.defaultCallTimeout = .seconds(5)
        }
        var failure: RPCError?
        do {
            _ = try await body(client)
        } catch {
            failure = error as? RPCError ?? RPCError(.internal, "\(error)")
        }
        await client.shutdown()
        return failure
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
