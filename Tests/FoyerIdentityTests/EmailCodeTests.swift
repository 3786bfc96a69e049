import Foundation
import FoyerAPI
import FoyerCrypto
import FoyerIdentity
import FoyerRPC
import FoyerTestSupport
import FoyerWire
import SQLKit
import Testing

extension IdentityHarness {
    /// The code in the newest email to `email` in the outbox.
    func newestCode(to email: String) async throws -> String {
        let outbox = try await call(IdentityMethods.listOutbox, ListOutboxRequest(recipient: email, limit: 1))
        let message = try #require(outbox.messages.first)
        return try #require(EmailCode.code(inMessage: message.body))
    }

    func completeCode(_ code: String, email: String, uid: String? = nil) async throws -> SessionTokens {
        try await call(
            IdentityMethods.completeEmailCode,
            CompleteEmailCodeRequest(email: email, code: code, uid: uid)
        ).linked()
    }

    /// The status `completeEmailCode` refused with, or nil if it succeeded.
    func codeStatus(_ code: String, email: String, uid: String? = nil) async -> RPCStatus? {
        await FoyerIdentityTests.status { try await self.completeCode(code, email: email, uid: uid) }
    }
}

/// A code other than `code` (its last digit moved on by one).
func wrongCode(_ code: String) -> String {
    let last = code.utf8.last! - UInt8(ascii: "0")
    return String(code.dropLast()) + String((last + 1) % 10)
}

@Suite("Email codes")
struct EmailCodeTests {
    @Test(
        "A code signs in without a verifier, is kept only hashed, and spends its link with it",
        arguments: TestEngine.allCases
    )
    func signInWithCode(engine: TestEngine) async throws {
        try await withIdentity(engine) { identity in
            let client = LinkVerifier()
            let token = try await identity.requestLink("Rosa@Example.com", verifier: client)
            let code = try await identity.newestCode(to: "rosa@example.com")
            let stored = try await identity.database.withConnection { sql in
                try await sql.raw("SELECT code_hash FROM identity_email_links").first()!.decodeBytes(
                    column: "code_hash"
                )
            }
            #expect(stored.count == 32 && stored != Array(code.utf8))

            let session = try await identity.completeCode(code, email: "rosa@EXAMPLE.com")
            #expect(!session.isAnonymous)
            let user = try await identity.call(IdentityMethods.getUser, IdentityUserRequest(uid: session.uid))
            #expect(user.email == "rosa@example.com" && user.emailVerified)
            #expect(await identity.codeStatus(code, email: "rosa@example.com") == IdentityStatus.tokenAlreadyUsed)
            #expect(
                await status { try await identity.completeLink(token, verifier: client.verifier) }
                    == IdentityStatus.tokenAlreadyUsed
            )
        }
    }

    @Test("Redeeming the link spends the code", arguments: TestEngine.allCases)
    func linkSpendsCode(engine: TestEngine) async throws {
        try await withIdentity(engine) { identity in
            let client = LinkVerifier()
            let token = try await identity.requestLink("sami@example.com", verifier: client)
            let code = try await identity.newestCode(to: "sami@example.com")
            _ = try await identity.completeLink(token, verifier: client.verifier)
            #expect(await identity.codeStatus(code, email: "sami@example.com") == IdentityStatus.tokenAlreadyUsed)
        }
    }

    @Test(
        "Wrong codes are counted: five kill the code and its link, and then the right one is refused",
        arguments: TestEngine.allCases
    )
    func wrongCodesKillTheCode(engine: TestEngine) async throws {
        try await withIdentity(engine) { identity in
            let client = LinkVerifier()
            let token = try await identity.requestLink("tove@example.com", verifier: client)
            let code = try await identity.newestCode(to: "tove@example.com")
            for _ in 0..<5 {
                #expect(
                    await identity.codeStatus(wrongCode(code), email: "tove@example.com")
                        == IdentityStatus.invalidCredentials
                )
            }
            #expect(await identity.codeStatus(code, email: "tove@example.com") == IdentityStatus.tokenAlreadyUsed)
            #expect(
                await status { try await identity.completeLink(token, verifier: client.verifier) }
                    == IdentityStatus.tokenAlreadyUsed
            )
            // An address no code went to answers as a wrong code does.
            #expect(await identity.codeStatus(code, email: "nobody@example.com") == IdentityStatus.invalidCredentials)
        }
    }

    @Test("A code expires with its link after 10 minutes", arguments: TestEngine.allCases)
    func expiry(engine: TestEngine) async throws {
        try await withIdentity(engine) { identity in
            _ = try await identity.requestLink("uma@example.com", verifier: LinkVerifier())
            let code = try await identity.newestCode(to: "uma@example.com")
            identity.clock.advance(by: .seconds(601))
            #expect(await identity.codeStatus(code, email: "uma@example.com") == IdentityStatus.tokenExpired)
        }
    }

    @Test("Only the newest email's code works: a newer email replaces the older code", arguments: TestEngine.allCases)
    func newestCodeOnly(engine: TestEngine) async throws {
        try await withIdentity(engine) { identity in
            _ = try await identity.requestLink("vera@example.com", verifier: LinkVerifier())
            let older = try await identity.newestCode(to: "vera@example.com")
            identity.clock.advance(by: .seconds(1))
            _ = try await identity.requestLink("vera@example.com", verifier: LinkVerifier())
            let newer = try await identity.newestCode(to: "vera@example.com")
            if older != newer {
                #expect(
                    await identity.codeStatus(older, email: "vera@example.com") == IdentityStatus.invalidCredentials
                )
            }
            _ = try await identity.completeCode(newer, email: "vera@example.com")
        }
    }

    @Test(
        "A link code links the address to the guest that asked for it, and to no one else",
        arguments: TestEngine.allCases
    )
    func linkWithCode(engine: TestEngine) async throws {
        try await withIdentity(engine) { identity in
            let guest = try await identity.call(
                IdentityMethods.createGuest,
                CreateGuestRequest(idempotencyKey: randomKey())
            )
            let other = try await identity.call(
                IdentityMethods.createGuest,
                CreateGuestRequest(idempotencyKey: randomKey())
            )
            _ = try await identity.requestLink(
                "wes@example.com",
                purpose: .link,
                uid: guest.uid,
                verifier: LinkVerifier()
            )
            let code = try await identity.newestCode(to: "wes@example.com")
            // Neither another user nor a sign-in finds a link code.
            #expect(
                await identity.codeStatus(code, email: "wes@example.com", uid: other.uid)
                    == IdentityStatus.invalidCredentials
            )
            #expect(await identity.codeStatus(code, email: "wes@example.com") == IdentityStatus.invalidCredentials)
            let session = try await identity.completeCode(code, email: "wes@example.com", uid: guest.uid)
            #expect(session.uid == guest.uid && !session.isAnonymous)
            let user = try await identity.call(IdentityMethods.getUser, IdentityUserRequest(uid: guest.uid))
            #expect(user.email == "wes@example.com" && user.emailVerified)
        }
    }

    @Test(
        "Delivery link sends no code; delivery code sends no link, and its code works",
        arguments: TestEngine.allCases
    )
    func delivery(engine: TestEngine) async throws {
        try await withIdentity(engine, configure: { $0.emailLink.delivery = .link }) { identity in
            let token = try await identity.requestLink("xia@example.com", verifier: LinkVerifier())
            let body = try await identity.call(
                IdentityMethods.listOutbox,
                ListOutboxRequest(recipient: "xia@example.com", limit: 1)
            ).messages[0].body
            #expect(EmailCode.code(inMessage: body) == nil && body.contains(token))
            #expect(await identity.codeStatus("123456", email: "xia@example.com") == IdentityStatus.invalidCredentials)
        }
        try await withIdentity(engine, configure: { $0.emailLink.delivery = .code }) { identity in
            try await identity.call(
                IdentityMethods.startEmailLink,
                StartEmailLinkRequest(
                    purpose: .signIn,
                    email: "yan@example.com",
                    uid: nil,
                    verifierChallenge: LinkVerifier().challenge
                )
            )
            let body = try await identity.call(
                IdentityMethods.listOutbox,
                ListOutboxRequest(recipient: "yan@example.com", limit: 1)
            ).messages[0].body
            #expect(tokenInMessage(body) == nil)
            let code = try #require(EmailCode.code(inMessage: body))
            _ = try await identity.completeCode(code, email: "yan@example.com")
        }
    }
}
