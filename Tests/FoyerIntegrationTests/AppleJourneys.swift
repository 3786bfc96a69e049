import Foundation
import FoyerAPI
import FoyerClient
import FoyerTestSupport
import Testing

// Sign in with Apple through the gateway, written once and run on SQLite (AppleJourneyTests) and on PostgreSQL
// (PostgresAppleJourneyTests). Apple is played by keys generated in the test; identity reads their JWKS from a file.

/// Apple as the tests play it: an RS256 and an ES256 key, generated once per test run, and ID tokens on the
/// stack's clock.
enum StandInApple {
    static let rsaKey = "apple-rs256"
    static let ecKey = "apple-es256"

    static func provider() async throws -> TestIdentityProvider {
        try await TestIdentityProvider.generate([(rsaKey, "RS256"), (ecKey, "ES256")])
    }

    /// A subject no other journey uses, shaped like Apple's (`001234.<hex>.0123`).
    static func newSubject() -> String {
        "001234.\(UUID().uuidString.lowercased().filter { $0 != "-" }).0123"
    }

    /// An ID token for `subject` whose `nonce` claim is the hash of `nonce`, issued `issuedSecondsAgo` before the
    /// stack's now and valid for 10 minutes from then, for `audience`, signed with `kid`.
    static func token(
        _ stack: RunningStack,
        subject: String,
        nonce: TestNonce,
        audience: String = appleAudience,
        issuedSecondsAgo: Int64 = 0,
        kid: String = rsaKey
    ) async throws -> String {
        let issued = Int64(stack.now.timeIntervalSince1970) - issuedSecondsAgo
        let claims = IDTokenClaims(
            iss: appleIssuer,
            sub: subject,
            aud: audience,
            exp: issued + 600,
            iat: issued,
            nonce: nonce.hashed,
            email: "relay-\(subject.prefix(14))@privaterelay.appleid.com",
            email_verified: .string("true")
        )
        return try await provider().sign(claims, kid: kid)
    }

    /// What the app sends: the token and the raw nonce it kept.
    static func credential(_ token: String, _ nonce: TestNonce) -> Credential {
        .idToken(provider: .apple, idToken: token, rawNonce: nonce.raw)
    }

    /// A fresh token for `subject` with a fresh nonce, as the credential the app sends.
    static func freshCredential(_ stack: RunningStack, subject: String, kid: String = rsaKey) async throws -> Credential
    {
        let nonce = TestNonce()
        return credential(try await token(stack, subject: subject, nonce: nonce, kid: kid), nonce)
    }
}

/// A guest holding `notes` documents `keys` (each valued "account <key>") links the Apple identity `subject`.
///
/// - Returns: the guest's uid and what the link answered.
func makeAppleAccount(
    _ stack: RunningStack,
    subject: String,
    keys: [String]
) async throws -> (uid: String, linked: LinkResult) {
    try await stack.withClient { client async throws in
        let guest = try await client.signInAsGuest()
        for key in keys { try await client.put("notes", key, "account \(key)") }
        let linked = try await client.link(try await StandInApple.freshCredential(stack, subject: subject))
        return (guest.uid, linked)
    }
}

/// A guest with documents links an Apple ID token: it keeps its uid and documents and becomes a member whose
/// `me` lists the Apple identity.
func appleLinkJourney(_ stack: RunningStack) async throws {
    let subject = StandInApple.newSubject()
    let (uid, linked) = try await makeAppleAccount(stack, subject: subject, keys: ["a1", "a2", "a3"])
    #expect(linked.outcome == .linked)
    #expect(linked.session?.uid == uid)
    #expect(linked.session?.isAnonymous == false)
    try await stack.withClient(session: linked.session) { client async throws in
        let me = try await client.me()
        #expect(me.user.uid == uid)
        #expect(!me.user.isAnonymous)
        #expect(me.user.providers.map(\.provider) == [.apple])
        #expect(me.user.providers.map(\.subject) == [subject])
        #expect(me.usage.plan == "member")
        #expect(try await client.listAll("notes").map(\.key) == ["a1", "a2", "a3"])
        #expect(try await client.get("notes", "a2")?.text == "account a2")
    }
    #expect(try await stack.databases.state(of: uid) == "active")
    #expect(try await stack.databases.documentKeys(of: uid) == ["notes/a1", "notes/a2", "notes/a3"])
    #expect(try await stack.databases.counter("documents", of: uid) == 3)
    #expect(try await stack.databases.traces(of: uid)["identity_provider_links"] == 1)
}

/// A second guest links an Apple identity an account holds: refused with a conflict ticket; the token cannot be
/// presented again (its nonce is spent), the ticket alone merges the guest's documents, and the guest is gone.
func appleConflictJourney(_ stack: RunningStack) async throws {
    let subject = StandInApple.newSubject()
    let account = try await makeAppleAccount(stack, subject: subject, keys: ["shared", "mine"])
    let credential = try await StandInApple.freshCredential(stack, subject: subject)
    let guestUID = try await stack.withClient { client async throws in
        let guest = try await client.signInAsGuest()
        for key in ["shared", "theirs"] { try await client.put("notes", key, "guest \(key)") }

        let answer = try await client.link(credential, onConflict: .fail)
        #expect(answer.outcome == .conflict)
        let conflict = try #require(answer.conflict)
        #expect(conflict.otherUID == account.uid)
        #expect(await client.uid == guest.uid, "a conflict keeps the guest's session")
        #expect(try await stack.databases.state(of: guest.uid) == "active")
        #expect(try await stack.databases.documentKeys(of: guest.uid) == ["notes/shared", "notes/theirs"])
        // The refused link spent the token's nonce: presenting the token again is refused, even to merge.
        let replayed = await foyerFailure { try await client.link(credential, onConflict: .merge) }
        #expect(replayed == .nonceAlreadyUsed)

        let result = try await client.resolveConflict(ticket: conflict.ticket, choice: .merge)
        #expect(result.outcome == .merged)
        #expect(result.session?.uid == account.uid)
        #expect(result.session?.isAnonymous == false)
        #expect(result.mergeReport?.moved == 1)
        #expect(result.mergeReport?.keptAccount == 1)
        #expect(try await client.get("notes", "shared")?.text == "account shared")
        #expect(try await client.get("notes", "theirs")?.text == "guest theirs")

        #expect(try await stack.databases.state(of: guest.uid) == nil)
        let records = try await stack.databases.mergeRecords(from: guest.uid)
        #expect(records.userData == 1 && records.guestQuota == 1, "\(records)")
        let keys = try await stack.databases.documentKeys(of: account.uid)
        #expect(keys == ["notes/mine", "notes/shared", "notes/theirs"])
        // guest-quota adds the guest's whole usage (its 2 documents) to the account's 2, once.
        #expect(try await stack.databases.counter("documents", of: account.uid) == 4)
        return guest.uid
    }
    try await stack.withClient { client async throws in
        let replayed = await foyerFailure { try await client.signIn(with: credential) }
        #expect(replayed == .nonceAlreadyUsed)
    }
    // Last, as it moves the clock past the retentions (and so past the token's expiry).
    try await expectGone(guestUID, stack)
}

/// A fresh token of an Apple user (another key of Apple's, a new nonce) signs in to the account; another Apple
/// user signs up as a new member.
func appleSignInAgainJourney(_ stack: RunningStack) async throws {
    let subject = StandInApple.newSubject()
    let account = try await makeAppleAccount(stack, subject: subject, keys: ["kept"])
    try await stack.withClient { client async throws in
        let credential = try await StandInApple.freshCredential(stack, subject: subject, kid: StandInApple.ecKey)
        let session = try await client.signIn(with: credential)
        #expect(session.uid == account.uid)
        #expect(!session.isAnonymous)
        #expect(try await client.get("notes", "kept")?.text == "account kept")
    }
    try await stack.withClient { client async throws in
        let newcomer = try await client.signIn(
            with: try await StandInApple.freshCredential(stack, subject: StandInApple.newSubject())
        )
        #expect(newcomer.uid != account.uid)
        #expect(!newcomer.isAnonymous)
        #expect(try await client.listAll("notes").isEmpty)
    }
}

/// Tokens identity must refuse, each with its status: another app's audience, an expired token, a nonce used
/// before (the same token twice, and another token carrying it), a raw nonce that does not match the claim.
func appleRefusalsJourney(_ stack: RunningStack) async throws {
    let subject = StandInApple.newSubject()
    let account = try await makeAppleAccount(stack, subject: subject, keys: [])
    try await stack.withClient { client async throws in
        let nonce = TestNonce()
        let otherApp = try await StandInApple.token(
            stack,
            subject: subject,
            nonce: nonce,
            audience: "com.example.other-app"
        )
        let wrongAudience = await foyerFailure {
            try await client.signIn(with: StandInApple.credential(otherApp, nonce))
        }
        #expect(wrongAudience?.status == IdentityStatus.wrongAudience, "\(String(describing: wrongAudience))")
        #expect(wrongAudience?.name == "wrong-audience")

        let late = TestNonce()
        let stale = try await StandInApple.token(stack, subject: subject, nonce: late, issuedSecondsAgo: 1200)
        let expired = await foyerFailure { try await client.signIn(with: StandInApple.credential(stale, late)) }
        #expect(expired == .tokenExpired)

        let once = TestNonce()
        let first = try await StandInApple.token(stack, subject: subject, nonce: once)
        let second = try await StandInApple.token(stack, subject: subject, nonce: once, kid: StandInApple.ecKey)
        #expect(try await client.signIn(with: StandInApple.credential(first, once)).uid == account.uid)
        #expect(
            await foyerFailure { try await client.signIn(with: StandInApple.credential(first, once)) }
                == .nonceAlreadyUsed
        )
        #expect(
            await foyerFailure { try await client.signIn(with: StandInApple.credential(second, once)) }
                == .nonceAlreadyUsed
        )

        let kept = TestNonce()
        let token = try await StandInApple.token(stack, subject: subject, nonce: kept)
        let mismatch = await foyerFailure { try await client.signIn(with: StandInApple.credential(token, TestNonce())) }
        #expect(mismatch == .nonceMismatch)
    }
}
