import Foundation
import FoyerAPI
import FoyerCrypto
import FoyerIdentity
import FoyerRPC
import FoyerTestSupport
import FoyerWire
import Testing

@Suite("Linking and conflicts")
struct LinkingTests {
    private func linkApple(
        _ identity: IdentityHarness,
        _ uid: String,
        _ token: String,
        _ nonce: TestNonce?
    ) async throws
        -> LinkAttempt
    {
        try await identity.call(
            IdentityMethods.linkProvider,
            LinkProviderRequest(uid: uid, provider: .apple, idToken: token, rawNonce: nonce?.raw)
        )
    }

    @Test(
        "Linking Apple to a guest keeps its uid and makes it permanent; a second Apple identity is refused",
        arguments: TestEngine.allCases
    )
    func linkToGuest(engine: TestEngine) async throws {
        let provider = try await TestIdentityProvider.generate([("apple-1", "RS256")])
        try await withProviders(engine, apple: JWKSEndpoint(provider.jwksJSON)) { identity, _ in
            let guest = try await identity.newGuest()
            let nonce = TestNonce()
            let another = TestNonce()
            let tokens = try await provider.sign(
                [
                    identity.appleClaims(sub: "mine", nonce: nonce.hashed),
                    identity.appleClaims(sub: "another", nonce: another.hashed),
                ],
                kid: "apple-1"
            )
            let linked = try await linkApple(identity, guest.uid, tokens[0], nonce).linked()
            #expect(linked.uid == guest.uid && !linked.isAnonymous)
            // The same Apple identity signs in to the (former) guest.
            let again = TestNonce()
            let signIn = try await provider.sign(identity.appleClaims(sub: "mine", nonce: again.hashed), kid: "apple-1")
            #expect(try await identity.providerSignIn(.apple, signIn, rawNonce: again.raw).uid == guest.uid)
            #expect(
                await status { try await linkApple(identity, guest.uid, tokens[1], another) }
                    == IdentityStatus.providerAlreadyLinked
            )
        }
    }

    @Test(
        "The Apple path: a credential of another account answers its uid and a ticket, the nonce is spent, and the ticket signs in once, for that guest only",
        arguments: TestEngine.allCases
    )
    func appleConflictTicket(engine: TestEngine) async throws {
        let provider = try await TestIdentityProvider.generate([("apple-1", "RS256")])
        try await withProviders(engine, apple: JWKSEndpoint(provider.jwksJSON)) { identity, _ in
            let nonces = [TestNonce(), TestNonce()]
            let tokens = try await provider.sign(
                nonces.map { identity.appleClaims(sub: "owner", nonce: $0.hashed) },
                kid: "apple-1"
            )
            let account = try await identity.providerSignIn(.apple, tokens[0], rawNonce: nonces[0].raw)
            let guest = try await identity.newGuest()

            let details = try await expectConflict { try await linkApple(identity, guest.uid, tokens[1], nonces[1]) }
            #expect(details.otherUID == account.uid)
            #expect(try Base64URL.decode(details.ticket).count == 32)
            // Nothing of the link was written; the guest is still a guest.
            let guestInfo = try await identity.call(IdentityMethods.getUser, IdentityUserRequest(uid: guest.uid))
            #expect(guestInfo.isAnonymous && guestInfo.providers.isEmpty)
            // The Apple token cannot be presented again: its nonce is spent.
            #expect(
                await status { try await linkApple(identity, guest.uid, tokens[1], nonces[1]) }
                    == IdentityStatus.nonceAlreadyUsed
            )

            let stranger = try await identity.newGuest()
            #expect(
                await status { try await identity.redeem(stranger, ticket: details.ticket) }
                    == IdentityStatus.ticketInvalid
            )
            #expect(
                await status { try await identity.redeem(guest, ticket: "garbage") } == IdentityStatus.ticketInvalid
            )
            let switched = try await identity.redeem(guest, ticket: details.ticket)
            #expect(switched.uid == account.uid && !switched.isAnonymous)
            // Redeeming began the guest's merge and signed it out: the ticket cannot be presented again.
            #expect(
                await status { try await identity.redeem(guest, ticket: details.ticket, operationID: "again") }
                    == IdentityStatus.tokenRevoked
            )
        }
    }

    @Test("Conflict tickets expire", arguments: [TestEngine.sqlite])
    func ticketExpiry(engine: TestEngine) async throws {
        try await withIdentity(engine) { identity in
            let owner = try await identity.newGuest()
            _ = try await identity.call(
                IdentityMethods.linkPassword,
                LinkPasswordRequest(uid: owner.uid, email: "own@example.com", password: "owner's password")
            ).linked()
            let guest = try await identity.newGuest()
            let details = try await expectConflict {
                try await identity.call(
                    IdentityMethods.linkPassword,
                    LinkPasswordRequest(uid: guest.uid, email: "own@example.com", password: "owner's password")
                )
            }
            identity.clock.advance(by: .seconds(601))
            #expect(
                await status { try await identity.redeem(guest, ticket: details.ticket) }
                    == IdentityStatus.ticketInvalid
            )
        }
    }

    @Test(
        "An email in use: a wrong password gets no uid and no ticket; the right one gets both",
        arguments: TestEngine.allCases
    )
    func passwordConflict(engine: TestEngine) async throws {
        try await withIdentity(engine) { identity in
            let owner = try await identity.newGuest()
            _ = try await identity.call(
                IdentityMethods.linkPassword,
                LinkPasswordRequest(uid: owner.uid, email: "taken@example.com", password: "owner's password")
            ).linked()
            let guest = try await identity.newGuest()
            let guess = try await rpcError {
                try await identity.call(
                    IdentityMethods.linkPassword,
                    LinkPasswordRequest(uid: guest.uid, email: "taken@example.com", password: "a wrong guess")
                )
            }
            #expect(guess.status == IdentityStatus.emailAlreadyInUse)
            #expect(guess.details.readableBytes == 0)
            let details = try await expectConflict {
                try await identity.call(
                    IdentityMethods.linkPassword,
                    LinkPasswordRequest(uid: guest.uid, email: "Taken@Example.com", password: "owner's password")
                )
            }
            #expect(details.otherUID == owner.uid)
            #expect(try await identity.redeem(guest, ticket: details.ticket).uid == owner.uid)
            #expect(try await identity.call(IdentityMethods.getUser, IdentityUserRequest(uid: guest.uid)).isAnonymous)
        }
    }
}
