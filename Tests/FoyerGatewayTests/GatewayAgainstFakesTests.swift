import Foundation
import FoyerAPI
import FoyerRPC
import FoyerTestSupport
import FoyerWire
import NIOCore
import Testing

@Suite("The gateway against fakes of the services: the failures real services rarely produce")
struct GatewayAgainstFakesTests {
    private static let guestKey = "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"

    private static func session(uid: String) -> SessionTokens {
        SessionTokens(
            uid: uid,
            isAnonymous: true,
            sessionID: "session-1",
            accessToken: "access",
            accessTokenExpiresAtMilliseconds: 1,
            refreshToken: "refresh",
            refreshTokenExpiresAtMilliseconds: 1
        )
    }

    @Test("A guest sign-in is admission opening the account under the uid the gateway made, then the guest under it")
    func guestSignInIsTwoCalls() async throws {
        var fakes = try FakeServices()
        fakes.guestQuota.handle(GuestQuotaMethods.admitSignup) { _ in
            AdmitSignupResponse(remainingForSource: 9, liveGuests: 1, liveGuestsMax: 100)
        }
        fakes.identity.handle(IdentityMethods.createGuest) { request in Self.session(uid: request.uid ?? "") }

        let session = try await fakes.withGateway { gateway in
            try await gateway.call(GatewayMethods.guestSignIn, GuestSignInRequest(idempotencyKey: Self.guestKey))
        }

        #expect(fakes.log.names == ["guest-quota.admitSignup", "identity.createGuest"])
        let opened = try #require(fakes.log.requests(GuestQuotaMethods.admitSignup).first?.uid)
        #expect(CreateGuestRequest.isNewUID(opened))
        #expect(fakes.log.requests(IdentityMethods.createGuest).map(\.uid) == [opened])
        #expect(session.uid == opened)
    }

    @Test("A replayed sign-in key answers the earlier guest; the account opened for the new uid is taken away")
    func replayedSignInClosesTheUnusedAccount() async throws {
        var fakes = try FakeServices()
        fakes.guestQuota.handle(GuestQuotaMethods.admitSignup) { _ in
            AdmitSignupResponse(remainingForSource: 9, liveGuests: 1, liveGuestsMax: 100)
        }
        fakes.identity.handle(IdentityMethods.createGuest) { _ in Self.session(uid: "guest-made-before") }
        fakes.guestQuota.handle(GuestQuotaMethods.deleteAll) { _ in
            QuotaDeleteAllResponse(existed: true, wasGuest: true)
        }

        let session = try await fakes.withGateway { gateway in
            try await gateway.call(GatewayMethods.guestSignIn, GuestSignInRequest(idempotencyKey: Self.guestKey))
        }

        #expect(session.uid == "guest-made-before")
        let opened = try #require(fakes.log.requests(GuestQuotaMethods.admitSignup).first?.uid)
        #expect(fakes.log.requests(GuestQuotaMethods.deleteAll).map(\.uid) == [opened])
    }

    @Test("A guest's first put refused because the guest is gone takes away the quota account its consume opened")
    func firstPutOfAGoneGuestRemovesTheAccount() async throws {
        var fakes = try FakeServices()
        fakes.identity.handle(IdentityMethods.verifyAccessToken) { _ in
            VerifiedAccessToken(uid: "u1", isAnonymous: true, sessionID: "s1", expiresAtMilliseconds: 1)
        }
        fakes.identity.handle(IdentityMethods.recordActivity) { _ in Empty() }
        fakes.guestQuota.handle(GuestQuotaMethods.consume) { request in
            ConsumeResponse(
                usage: request.charges.map { CounterUsage(counter: $0.counter, limit: 100, used: UInt64($0.amount)) },
                replayed: false,
                opened: true
            )
        }
        fakes.userData.handle(UserDataMethods.putOnce) { _ in
            throw RPCError(UserDataStatus.uidDeleted, "the documents of this uid were deleted")
        }
        fakes.guestQuota.handle(GuestQuotaMethods.deleteAll) { _ in
            QuotaDeleteAllResponse(existed: true, wasGuest: true)
        }
        let token = try fakes.tokens.accessToken(uid: "u1", sessionID: "s1")

        let error = try await fakes.withGateway { gateway in
            await #expect(throws: RPCError.self) {
                try await gateway.call(
                    GatewayMethods.putDocument,
                    GatewayPutRequest(
                        accessToken: token,
                        collection: "notes",
                        key: "n1",
                        value: ByteBuffer(string: "hello"),
                        expectedVersion: nil,
                        idempotencyKey: "put-1"
                    )
                )
            }
        }

        #expect(error?.status == UserDataStatus.uidDeleted)
        #expect(
            fakes.log.names == [
                "identity.verifyAccessToken", "identity.recordActivity", "guest-quota.consume", "user-data.putOnce",
                "guest-quota.deleteAll",
            ]
        )
        #expect(fakes.log.requests(GuestQuotaMethods.deleteAll).map(\.uid) == ["u1"])
    }

    @Test("A put whose user-data write fails gives back both charges it took, not the collection's it was not charged")
    func failedWriteRefundsTheQuota() async throws {
        var fakes = try FakeServices()
        fakes.identity.handle(IdentityMethods.verifyAccessToken) { _ in
            VerifiedAccessToken(uid: "u1", isAnonymous: true, sessionID: "s1", expiresAtMilliseconds: 1)
        }
        fakes.identity.handle(IdentityMethods.recordActivity) { _ in Empty() }
        // A plan without documents:notes: guest-quota skips that charge and leaves it out of the answer.
        fakes.guestQuota.handle(GuestQuotaMethods.consume) { request in
            ConsumeResponse(
                usage: request.charges.filter { !$0.counter.contains(":") }.map {
                    CounterUsage(counter: $0.counter, limit: 100, used: UInt64($0.amount))
                },
                replayed: false,
                opened: false
            )
        }
        fakes.userData.handle(UserDataMethods.putOnce) { _ in throw RPCError.failedPrecondition("disk full") }
        fakes.guestQuota.handle(GuestQuotaMethods.refund) { _ in RefundResponse(outcome: .refunded, usage: nil) }
        let token = try fakes.tokens.accessToken(uid: "u1", sessionID: "s1")

        let error = try await fakes.withGateway { gateway in
            await #expect(throws: RPCError.self) {
                try await gateway.call(
                    GatewayMethods.putDocument,
                    GatewayPutRequest(
                        accessToken: token,
                        collection: "notes",
                        key: "n1",
                        value: ByteBuffer(string: "hello"),
                        expectedVersion: nil,
                        idempotencyKey: "put-1"
                    )
                )
            }
        }

        #expect(error?.status == .failedPrecondition)
        #expect(
            fakes.log.names == [
                "identity.verifyAccessToken", "identity.recordActivity", "guest-quota.consume", "user-data.putOnce",
                "guest-quota.refund", "guest-quota.refund",
            ]
        )
        let consumed = try #require(fakes.log.requests(GuestQuotaMethods.consume).first).charges
        #expect(consumed.map(\.counter) == ["documents", "documents:notes", "bytes"])
        #expect(consumed.map(\.amount) == [1, 1, 5])
        let refunded = fakes.log.requests(GuestQuotaMethods.refund)
        #expect(refunded.map(\.idempotencyKey) == [consumed[0], consumed[2]].map(\.idempotencyKey))
        #expect(refunded.allSatisfy { $0.uid == "u1" })
    }

    @Test("A data call fails when identity cannot confirm the session, and never reaches user-data")
    func sessionCheckFailsClosed() async throws {
        var fakes = try FakeServices()
        fakes.identity.handle(IdentityMethods.verifyAccessToken) { _ in
            throw RPCError.unavailable("identity is down")
        }
        fakes.userData.handle(UserDataMethods.get) { _ in GetDocumentResponse(document: nil) }
        let token = try fakes.tokens.accessToken(uid: "u1", sessionID: "s1")

        let error = try await fakes.withGateway { gateway in
            await #expect(throws: RPCError.self) {
                try await gateway.call(
                    GatewayMethods.getDocument,
                    GatewayDocumentRequest(accessToken: token, collection: "notes", key: "n1")
                )
            }
        }

        #expect(error?.status == .unavailable)
        #expect(!fakes.log.names.isEmpty)
        #expect(fakes.log.names.allSatisfy { $0 == "identity.verifyAccessToken" })
    }

    @Test("A token signed by a key identity never published is refused without asking identity or user-data")
    func foreignSignatureRefusedLocally() async throws {
        var fakes = try FakeServices()
        fakes.identity.handle(IdentityMethods.verifyAccessToken) { _ in
            VerifiedAccessToken(uid: "u1", isAnonymous: true, sessionID: "s1", expiresAtMilliseconds: 1)
        }
        fakes.userData.handle(UserDataMethods.get) { _ in GetDocumentResponse(document: nil) }
        let forged = try FakeTokens().accessToken(uid: "u1", sessionID: "s1")

        let error = try await fakes.withGateway { gateway in
            await #expect(throws: RPCError.self) {
                try await gateway.call(
                    GatewayMethods.getDocument,
                    GatewayDocumentRequest(accessToken: forged, collection: "notes", key: "n1")
                )
            }
        }

        #expect(error?.status == IdentityStatus.invalidToken)
        #expect(fakes.log.names.isEmpty)
    }

    @Test("A malformed guest key is refused before guest-quota is asked to admit a sign-up")
    func malformedGuestKeyRefusedBeforeAdmission() async throws {
        var fakes = try FakeServices()
        fakes.guestQuota.handle(GuestQuotaMethods.admitSignup) { _ in
            AdmitSignupResponse(remainingForSource: 9, liveGuests: 1, liveGuestsMax: 100)
        }
        fakes.identity.handle(IdentityMethods.createGuest) { _ in Self.session(uid: "guest-1") }

        let error = try await fakes.withGateway { gateway in
            await #expect(throws: RPCError.self) {
                try await gateway.call(GatewayMethods.guestSignIn, GuestSignInRequest(idempotencyKey: "short"))
            }
        }

        #expect(error?.status == .invalidArgument)
        #expect(fakes.log.names.isEmpty)
    }
}
