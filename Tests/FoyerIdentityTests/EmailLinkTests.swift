import Foundation
import FoyerAPI
import FoyerCrypto
import FoyerIdentity
import FoyerRPC
import FoyerTestSupport
import FoyerWire
import SQLKit
import Testing

/// A client's verifier and the challenge it sends when asking for a link.
struct LinkVerifier {
    let verifier = SecureRandom.bytes(count: 32)
    var challenge: [UInt8] { SHA256.hash(verifier) }
}

extension IdentityHarness {
    /// Asks for a link to `email` and returns the token from the outbox.
    func requestLink(
        _ email: String,
        purpose: EmailLinkPurpose = .signIn,
        uid: String? = nil,
        verifier: LinkVerifier
    ) async throws -> String {
        let before = Set(try await call(IdentityMethods.listOutbox, ListOutboxRequest(limit: 1000)).messages.map(\.id))
        try await call(
            IdentityMethods.startEmailLink,
            StartEmailLinkRequest(purpose: purpose, email: email, uid: uid, verifierChallenge: verifier.challenge)
        )
        let outbox = try await call(IdentityMethods.listOutbox, ListOutboxRequest(recipient: email, limit: 1000))
        let message = try #require(outbox.messages.first { !before.contains($0.id) })
        return try #require(tokenInMessage(message.body))
    }

    func completeLink(_ token: String, verifier: [UInt8], uid: String? = nil) async throws -> SessionTokens {
        try await completeLinkAttempt(token, verifier: verifier, uid: uid).linked()
    }

    /// What completing a link answered: a session, or the account that holds the address.
    func completeLinkAttempt(_ token: String, verifier: [UInt8], uid: String? = nil) async throws -> LinkAttempt {
        try await call(
            IdentityMethods.completeEmailLink,
            CompleteEmailLinkRequest(token: token, verifier: verifier, uid: uid)
        )
    }
}

/// The token in a message built from the default link template (`...#token=<43 characters>`).
func tokenInMessage(_ body: String) -> String? {
    guard let range = body.range(of: "#token=") else { return nil }
    return String(body[range.upperBound...].prefix(43))
}

@Suite("Passwordless email links")
struct EmailLinkTests {
    @Test(
        "A link signs in (creating a permanent account), works once, and only with the asking client's verifier",
        arguments: TestEngine.allCases
    )
    func signInWithLink(engine: TestEngine) async throws {
        try await withIdentity(engine) { identity in
            let client = LinkVerifier()
            let token = try await identity.requestLink("Noor@Example.com", verifier: client)
            #expect(try Base64URL.decode(token).count == 32)
            // Stored only hashed.
            let storedHash = try await identity.database.withConnection { sql in
                try await sql.raw("SELECT token_hash FROM identity_email_links").first()!.decodeBytes(
                    column: "token_hash"
                )
            }
            #expect(storedHash == SHA256.hash(try Base64URL.decode(token)))
            // Someone else (a link scanner, another device) without the verifier consumes nothing.
            #expect(
                await status { try await identity.completeLink(token, verifier: SecureRandom.bytes(count: 32)) }
                    == IdentityStatus.verifierMismatch
            )
            let session = try await identity.completeLink(token, verifier: client.verifier)
            #expect(!session.isAnonymous)
            let user = try await identity.call(IdentityMethods.getUser, IdentityUserRequest(uid: session.uid))
            #expect(user.email == "noor@example.com" && user.emailVerified && !user.hasPassword)
            #expect(
                await status { try await identity.completeLink(token, verifier: client.verifier) }
                    == IdentityStatus.tokenAlreadyUsed
            )
            // A second link signs in to the same account.
            let again = LinkVerifier()
            let second = try await identity.requestLink("noor@example.com", verifier: again)
            #expect(try await identity.completeLink(second, verifier: again.verifier).uid == session.uid)
        }
    }

    @Test("Links expire after 10 minutes; wrong verifiers burn a token after 5 tries", arguments: TestEngine.allCases)
    func expiryAndBurn(engine: TestEngine) async throws {
        try await withIdentity(engine) { identity in
            let client = LinkVerifier()
            let token = try await identity.requestLink("oli@example.com", verifier: client)
            identity.clock.advance(by: .seconds(601))
            #expect(
                await status { try await identity.completeLink(token, verifier: client.verifier) }
                    == IdentityStatus.tokenExpired
            )

            let other = LinkVerifier()
            let burnt = try await identity.requestLink("oli@example.com", verifier: other)
            for _ in 0..<5 {
                #expect(
                    await status { try await identity.completeLink(burnt, verifier: [1, 2, 3]) }
                        == IdentityStatus.verifierMismatch
                )
            }
            #expect(
                await status { try await identity.completeLink(burnt, verifier: other.verifier) }
                    == IdentityStatus.tokenAlreadyUsed
            )
        }
    }

    @Test(
        "Starting a link answers the same for known and unknown addresses, and is limited per address",
        arguments: TestEngine.allCases
    )
    func sameAnswerAndLimit(engine: TestEngine) async throws {
        try await withIdentity(engine) { identity in
            let guest = try await identity.newGuest()
            _ = try await identity.call(
                IdentityMethods.linkPassword,
                LinkPasswordRequest(uid: guest.uid, email: "known@example.com", password: "a fine password")
            ).linked()
            for email in ["known@example.com", "unknown@example.com"] {
                for _ in 0..<5 {
                    let answer = try await identity.call(
                        IdentityMethods.startEmailLink,
                        StartEmailLinkRequest(
                            purpose: .signIn,
                            email: email,
                            verifierChallenge: LinkVerifier().challenge
                        )
                    )
                    #expect(answer == Empty())
                }
                let limited = try await rpcError {
                    try await identity.call(
                        IdentityMethods.startEmailLink,
                        StartEmailLinkRequest(
                            purpose: .signIn,
                            email: email,
                            verifierChallenge: LinkVerifier().challenge
                        )
                    )
                }
                #expect(limited.status == IdentityStatus.tooManyAttempts)
                #expect(limited.retryAfterMilliseconds == 3_600_000)
            }
            let outbox = try await identity.call(IdentityMethods.listOutbox, ListOutboxRequest(limit: 100))
            #expect(outbox.messages.count == 10)
            identity.clock.advance(by: .seconds(3601))
            _ = try await identity.requestLink("known@example.com", verifier: LinkVerifier())
        }
    }

    @Test(
        "A link attaches a proven email to a guest; a link for someone else's address gives a conflict ticket",
        arguments: TestEngine.allCases
    )
    func linkPurpose(engine: TestEngine) async throws {
        try await withIdentity(engine) { identity in
            let guest = try await identity.newGuest()
            let client = LinkVerifier()
            let token = try await identity.requestLink(
                "gus@example.com",
                purpose: .link,
                uid: guest.uid,
                verifier: client
            )
            // Only the user that asked can complete it.
            let intruder = try await identity.newGuest()
            #expect(
                await status { try await identity.completeLink(token, verifier: client.verifier, uid: intruder.uid) }
                    == IdentityStatus.invalidToken
            )
            let linked = try await identity.completeLink(token, verifier: client.verifier, uid: guest.uid)
            #expect(linked.uid == guest.uid && !linked.isAnonymous)

            let other = try await identity.newGuest()
            let otherClient = LinkVerifier()
            let otherToken = try await identity.requestLink(
                "gus@example.com",
                purpose: .link,
                uid: other.uid,
                verifier: otherClient
            )
            let details = try await expectConflict {
                try await identity.completeLinkAttempt(otherToken, verifier: otherClient.verifier, uid: other.uid)
            }
            #expect(details.otherUID == guest.uid)
            let account = try await identity.redeem(other, ticket: details.ticket)
            #expect(account.uid == guest.uid)
            #expect(
                await status {
                    try await identity.completeLink(otherToken, verifier: otherClient.verifier, uid: other.uid)
                }
                    == IdentityStatus.tokenAlreadyUsed
            )
        }
    }
}
