import Foundation
import FoyerAPI
import FoyerCrypto
import FoyerIdentity
import FoyerRPC
import FoyerTestSupport
import FoyerWire
import Testing

/// The failed-password limit per (address, client source), with a higher ceiling per address across all sources,
/// and what it means for the owner when an attacker also spends the address's email links.
@Suite("Failed passwords counted per client source")
struct FailedLoginSourceTests {
    static let attacker = "203.0.113.66"
    static let ownerSource = "198.51.100.7"

    private func startLink(_ identity: IdentityHarness, _ email: String, from source: String) async throws {
        try await identity.call(
            IdentityMethods.startEmailLink,
            StartEmailLinkRequest(
                purpose: .signIn,
                email: email,
                verifierChallenge: LinkVerifier().challenge,
                source: source
            )
        )
    }

    /// A member with this email and password.
    private func member(_ identity: IdentityHarness, _ email: String, _ password: String) async throws -> String {
        let guest = try await identity.newGuest()
        _ = try await identity.call(
            IdentityMethods.linkPassword,
            LinkPasswordRequest(uid: guest.uid, email: email, password: password)
        ).linked()
        return guest.uid
    }

    @Test(
        "An attacker who spent an address's failed passwords and email links from one source cannot lock the owner out",
        arguments: TestEngine.allCases
    )
    func ownerStillSignsIn(engine: TestEngine) async throws {
        try await withIdentity(engine) { identity in
            let owner = try await member(identity, "victim@example.com", "the victim's passphrase")
            // The attacker guesses until its source must wait...
            for _ in 0..<6 {
                #expect(
                    await status { try await signIn(identity, "victim@example.com", "a guess", from: Self.attacker) }
                        == IdentityStatus.invalidCredentials
                )
            }
            let waiting = try await rpcError {
                try await signIn(identity, "victim@example.com", "the victim's passphrase", from: Self.attacker)
            }
            #expect(waiting.status == IdentityStatus.tooManyAttempts)
            // ...and spends every email link the address may get this hour.
            for _ in 0..<5 { try await startLink(identity, "victim@example.com", from: Self.attacker) }
            #expect(
                await status { try await startLink(identity, "victim@example.com", from: Self.ownerSource) }
                    == IdentityStatus.tooManyAttempts
            )

            // The owner, from their own address, signs in with the right password at once.
            let session = try await signIn(
                identity,
                "victim@example.com",
                "the victim's passphrase",
                from: Self.ownerSource
            )
            #expect(session.uid == owner)
            // Their success does not clear the attacker's count.
            #expect(
                await status { try await signIn(identity, "victim@example.com", "a guess", from: Self.attacker) }
                    == IdentityStatus.tooManyAttempts
            )
            // The owner's own failures count against the owner's source only.
            for _ in 0..<5 {
                #expect(
                    await status {
                        try await signIn(identity, "victim@example.com", "mistyped", from: Self.ownerSource)
                    }
                        == IdentityStatus.invalidCredentials
                )
            }
            #expect(
                try await signIn(identity, "victim@example.com", "the victim's passphrase", from: Self.ownerSource).uid
                    == owner
            )
        }
    }

    @Test(
        "On the real clock (sub-microsecond times), attempts within the free ones are never told to wait",
        arguments: TestEngine.allCases
    )
    func realClock(engine: TestEngine) async throws {
        try await withIdentity(engine, configure: { $0.now = { Date() } }) { identity in
            let owner = try await member(identity, "clock@example.com", "the right passphrase")
            for index in 0..<4 {
                #expect(
                    await status {
                        try await signIn(identity, "fresh\(index)@example.com", "guess", from: Self.attacker)
                    } == IdentityStatus.invalidCredentials
                )
                #expect(
                    await status { try await signIn(identity, "clock@example.com", "guess", from: Self.attacker) }
                        == IdentityStatus.invalidCredentials
                )
            }
            #expect(
                try await signIn(identity, "clock@example.com", "the right passphrase", from: Self.ownerSource).uid
                    == owner
            )
            #expect(
                try await signIn(identity, "clock@example.com", "the right passphrase", from: Self.ownerSource).uid
                    == owner
            )
        }
    }

    @Test(
        "Guessing spread over many sources makes wrong passwords wait; the right one signs in from any source",
        arguments: TestEngine.allCases
    )
    func perAddressWait(engine: TestEngine) async throws {
        try await withIdentity(
            engine,
            configure: { configuration in
                configuration.failedLogins.freeAttempts = 2
                configuration.failedLogins.perAddressFreeAttempts = 6
            }
        ) { identity in
            let owner = try await member(identity, "spread@example.com", "the right passphrase")
            // Six sources, one guess each: all within the address's free attempts.
            for index in 1...6 {
                #expect(
                    await status { try await signIn(identity, "spread@example.com", "guess", from: "192.0.2.\(index)") }
                        == IdentityStatus.invalidCredentials
                )
            }
            // The seventh is checked, and makes the address wait.
            #expect(
                await status { try await signIn(identity, "spread@example.com", "guess", from: "192.0.2.7") }
                    == IdentityStatus.invalidCredentials
            )
            // A wrong password from another source is told to wait...
            let waiting = try await rpcError {
                try await signIn(identity, "spread@example.com", "guess", from: "192.0.2.8")
            }
            #expect(waiting.status == IdentityStatus.tooManyAttempts)
            #expect(waiting.retryAfterMilliseconds == 1000)
            // ...but the owner's right password, from a source never seen, signs in at once, during the wait.
            #expect(
                try await signIn(identity, "spread@example.com", "the right passphrase", from: Self.ownerSource).uid
                    == owner
            )
            // Wrong ones from yet other sources still wait, longer each time (the owner's attempt was counted while
            // it was checked; its success takes the failure back but leaves the wait, which holds wrong ones only).
            let again = try await rpcError {
                try await signIn(identity, "spread@example.com", "guess", from: "192.0.2.9")
            }
            #expect(again.status == IdentityStatus.tooManyAttempts)
            #expect(again.retryAfterMilliseconds == 4000)
        }
    }

    @Test(
        "Past perAddressFailuresMax only sources that signed in recently are checked; their failures do not count",
        arguments: TestEngine.allCases
    )
    func perAddressCeiling(engine: TestEngine) async throws {
        try await withIdentity(
            engine,
            configure: { configuration in
                configuration.failedLogins.freeAttempts = 2
                configuration.failedLogins.perAddressFreeAttempts = 50
                configuration.failedLogins.perAddressFailuresMax = 10
            }
        ) { identity in
            let owner = try await member(identity, "ceiling@example.com", "the right passphrase")
            #expect(
                try await signIn(identity, "ceiling@example.com", "the right passphrase", from: Self.ownerSource).uid
                    == owner
            )
            for index in 1...10 {
                #expect(
                    await status {
                        try await signIn(identity, "ceiling@example.com", "guess", from: "192.0.2.\(index)")
                    } == IdentityStatus.invalidCredentials
                )
            }
            // The address has seen 10 failures: a new source is refused before its password is checked.
            for password in ["guess", "the right passphrase"] {
                #expect(
                    await status { try await signIn(identity, "ceiling@example.com", password, from: "192.0.2.11") }
                        == IdentityStatus.tooManyAttempts
                )
            }
            // The owner's source, trusted after its sign-in, is checked; its own slip counts against it only.
            #expect(
                await status { try await signIn(identity, "ceiling@example.com", "mistyped", from: Self.ownerSource) }
                    == IdentityStatus.invalidCredentials
            )
            #expect(
                try await signIn(identity, "ceiling@example.com", "the right passphrase", from: Self.ownerSource).uid
                    == owner
            )
            // An hour without failures clears the count (and the trust).
            identity.clock.advance(by: .seconds(3600))
            #expect(
                try await signIn(identity, "ceiling@example.com", "the right passphrase", from: "192.0.2.11").uid
                    == owner
            )
        }
    }
}
