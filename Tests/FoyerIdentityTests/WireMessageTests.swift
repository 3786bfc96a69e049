import FoyerAPI
import FoyerWire
import NIOCore
import Testing

@Suite("Identity contract: message encodings")
struct WireMessageTests {
    private func roundTrip<M: WireMessage & Equatable>(_ message: M) throws {
        let decoded = try M(decoding: message.encoded())
        #expect(decoded == message)
        var trailing = message.encoded()
        trailing.writeInteger(UInt8(0))
        #expect(throws: WireError.trailingBytes) { try M(decoding: trailing) }
        let full = message.encoded()
        if full.readableBytes > 0 {
            let truncated = full.getSlice(at: full.readerIndex, length: full.readableBytes - 1)!
            #expect(throws: WireError.self) { try M(decoding: truncated) }
        }
    }

    @Test("Every identity message decodes to what was encoded, and refuses trailing or missing bytes")
    func roundTrips() throws {
        let state = AccountState(uid: "u1", kind: .merging, mergeInto: "u2", operationID: "op", sinceMilliseconds: 7)
        try roundTrip(CreateGuestRequest(idempotencyKey: String(repeating: "k", count: 22)))
        let session = SessionTokens(
            uid: "u",
            isAnonymous: true,
            sessionID: "s",
            accessToken: "a.b.c",
            accessTokenExpiresAtMilliseconds: 1,
            refreshToken: "r",
            refreshTokenExpiresAtMilliseconds: 2
        )
        try roundTrip(session)
        try roundTrip(LinkAttempt.session(session))
        try roundTrip(RefreshSessionRequest(refreshToken: "r"))
        try roundTrip(VerifyAccessTokenRequest(accessToken: "t", requirement: .member))
        try roundTrip(VerifyAccessTokenRequest(accessToken: "t", requirement: .guestOrRecentSignIn))
        try roundTrip(VerifiedAccessToken(uid: "u", isAnonymous: false, sessionID: "s", expiresAtMilliseconds: 9))
        try roundTrip(RevokeSessionRequest(uid: "u", sessionID: "s"))
        try roundTrip(IdentityUserRequest(uid: "u"))
        try roundTrip(JWKSResponse(json: Array(#"{"keys":[]}"#.utf8)))
        try roundTrip(SigningKeyRotated(keyID: "k"))
        try roundTrip(
            UserInfo(
                uid: "u",
                isAnonymous: false,
                state: state,
                createdAtMilliseconds: 1,
                lastActivityAtMilliseconds: 2,
                email: "a@b.c",
                emailVerified: true,
                hasPassword: true,
                providers: [LinkedIdentity(provider: .apple, subject: "s", email: nil, emailTrusted: false)]
            )
        )
        try roundTrip(LinkPasswordRequest(uid: "u", email: "a@b.c", password: "p"))
        try roundTrip(PasswordSignInRequest(email: "a@b.c", password: "p"))
        try roundTrip(
            StartEmailLinkRequest(
                purpose: .link,
                email: "a@b.c",
                uid: "u",
                verifierChallenge: Array(repeating: 1, count: 32)
            )
        )
        try roundTrip(CompleteEmailLinkRequest(token: "t", verifier: [1, 2], uid: nil))
        try roundTrip(ListOutboxRequest(recipient: "a@b.c", limit: 5))
        try roundTrip(
            OutboxMessages(messages: [
                OutboxMessage(id: "i", recipient: "a@b.c", subject: "s", body: "b", createdAtMilliseconds: 3)
            ])
        )
        try roundTrip(ProviderSignInRequest(provider: .google, idToken: "t", rawNonce: "n"))
        try roundTrip(LinkProviderRequest(uid: "u", provider: .apple, idToken: "t", rawNonce: nil))
        try roundTrip(ConflictDetails(otherUID: "o", ticket: "t", ticketExpiresAtMilliseconds: 4))
        try roundTrip(LinkAttempt.conflict(ConflictDetails(otherUID: "o", ticket: "t", ticketExpiresAtMilliseconds: 4)))
        try roundTrip(
            LinkAccountRequest(
                operation: CallerOperation(
                    accessToken: "t",
                    requirement: .guestOrRecentSignIn,
                    operationID: "op",
                    answerID: .init(repeating: 1, count: 32)
                ),
                proof: .ticket("ticket"),
                onConflict: .discard,
                mergePolicy: .keepNewest,
                source: "203.0.113.9"
            )
        )
        try roundTrip(LinkStep.begun(account: session, guest: state))
        try roundTrip(
            DeletionStep.continuing(AccountState(uid: "u", kind: .deleting, operationID: "op", deletionReason: .ttl))
        )
        try roundTrip(IdentityOperationRequest(uid: "u", operationID: "op"))
        try roundTrip(BeginDeleteRequest(uid: "u", operationID: "op", idleBeforeMilliseconds: 5))
        try roundTrip(state)
        try roundTrip(ListStuckAccountsRequest(olderThanSeconds: 60, limit: 10))
        try roundTrip(StuckAccounts(accounts: [state, AccountState(uid: "x", kind: .deleting)]))
        try roundTrip(
            ListExpiredGuestsRequest(
                idleBeforeMilliseconds: 1,
                limit: 2,
                after: ExpiredGuest(uid: "g", lastActivityAtMilliseconds: 3)
            )
        )
        try roundTrip(ExpiredGuests(guests: [ExpiredGuest(uid: "g", lastActivityAtMilliseconds: 1)], next: nil))
    }

    @Test("Oversized fields are refused by the decoder, before any handler could hash them")
    func capsAreEnforced() {
        let longPassword = String(repeating: "p", count: IdentityLimits.passwordByteCountMax + 1)
        #expect(throws: WireError.lengthOverLimit) {
            try PasswordSignInRequest(decoding: PasswordSignInRequest(email: "a@b.c", password: longPassword).encoded())
        }
        let longEmail = String(repeating: "e", count: IdentityLimits.emailByteCountMax + 1)
        #expect(throws: WireError.lengthOverLimit) {
            try LinkPasswordRequest(decoding: LinkPasswordRequest(uid: "u", email: longEmail, password: "p").encoded())
        }
        #expect(throws: WireError.lengthOverLimit) {
            try ProviderSignInRequest(
                decoding: ProviderSignInRequest(
                    provider: .apple,
                    idToken: String(repeating: "t", count: IdentityLimits.idTokenByteCountMax + 1)
                ).encoded()
            )
        }
    }

    @Test("Values the contract does not define are refused")
    func badValuesAreRefused() {
        // Unknown provider, unknown requirement, short idempotency key, wrong challenge size, link without uid.
        var provider = ByteBuffer()
        provider.writeInteger(UInt8(9))
        provider.writeLengthPrefixedString("t")
        provider.writeBool(false)
        #expect(throws: WireError.invalidValue) { try ProviderSignInRequest(decoding: provider) }
        // A link attempt is a session (0) or a conflict (1), nothing else.
        var attempt = LinkAttempt.conflict(ConflictDetails(otherUID: "o", ticket: "t", ticketExpiresAtMilliseconds: 4))
            .encoded()
        attempt.setInteger(UInt8(2), at: attempt.readerIndex)
        #expect(throws: WireError.invalidValue) { try LinkAttempt(decoding: attempt) }
        #expect(throws: WireError.invalidValue) {
            try CreateGuestRequest(decoding: CreateGuestRequest(idempotencyKey: "short").encoded())
        }
        #expect(throws: WireError.invalidValue) {
            try StartEmailLinkRequest(
                decoding: StartEmailLinkRequest(purpose: .signIn, email: "a@b.c", verifierChallenge: [1, 2]).encoded()
            )
        }
        #expect(throws: WireError.invalidValue) {
            try StartEmailLinkRequest(
                decoding: StartEmailLinkRequest(
                    purpose: .link,
                    email: "a@b.c",
                    uid: nil,
                    verifierChallenge: Array(repeating: 0, count: 32)
                ).encoded()
            )
        }
        #expect(throws: WireError.invalidValue) {
            try ListExpiredGuestsRequest(
                decoding: ListExpiredGuestsRequest(idleBeforeMilliseconds: 1, limit: 0).encoded()
            )
        }
        var requirement = ByteBuffer()
        requirement.writeLengthPrefixedString("t")
        requirement.writeInteger(UInt8(4))
        #expect(throws: WireError.invalidValue) { try VerifyAccessTokenRequest(decoding: requirement) }
    }

    @Test("Administration messages round-trip and refuse values, names and lengths the contract does not define")
    func administration() throws {
        let key = AdminKeyInfo(
            keyID: "0123456789abcdef",
            name: "ops",
            createdAtMilliseconds: 1,
            createdBy: "cluster-secret",
            revokedAtMilliseconds: 3,
            lastUsedAtMilliseconds: 2
        )
        try roundTrip(FindUserRequest(by: .email, value: "a@b.c"))
        try roundTrip(
            ListUsersRequest(
                kind: .guests,
                order: .lastActivity,
                newestFirst: false,
                limit: 7,
                after: UserCursor(atMilliseconds: 9, uid: "u")
            )
        )
        try roundTrip(UserCounts(guests: 1, members: 2, createdSince: 3, pendingDeletions: 4, pendingMerges: 5))
        try roundTrip(AdminKeyCreated(info: key, key: "foyer_admin_0123456789abcdef_s"))
        try roundTrip(
            AdminKeys(keys: [key, AdminKeyInfo(keyID: "k", name: "n", createdAtMilliseconds: 0, createdBy: "")])
        )
        try roundTrip(AdminActionStart(keyID: "k", action: "user.delete", target: "u"))
        try roundTrip(ListAdminActionsRequest(before: 8, limit: 1))
        try roundTrip(
            AdminActions(
                actions: [
                    AdminActionRecord(
                        id: 1,
                        atMilliseconds: 2,
                        keyID: "k",
                        keyName: "n",
                        action: "a",
                        target: nil,
                        outcome: "ok"
                    )
                ],
                next: 1
            )
        )

        for name in ["", "with space", "é", String(repeating: "n", count: 65)] {
            #expect(throws: WireError.self) {
                try CreateAdminKeyRequest(decoding: CreateAdminKeyRequest(name: name).encoded())
            }
        }
        #expect(throws: WireError.invalidValue) {
            try ListUsersRequest(decoding: ListUsersRequest(limit: 0).encoded())
        }
        #expect(throws: WireError.invalidValue) {
            try ListUsersRequest(decoding: ListUsersRequest(limit: UInt32(IdentityLimits.listCountMax) + 1).encoded())
        }
        #expect(throws: WireError.invalidValue) {
            try ListAdminActionsRequest(decoding: ListAdminActionsRequest(limit: 0).encoded())
        }
        #expect(throws: WireError.invalidValue) {
            try AdminActionStart(decoding: AdminActionStart(keyID: "k", action: "").encoded())
        }
        #expect(throws: WireError.invalidValue) {
            try AdminActionEnd(decoding: AdminActionEnd(id: 1, outcome: "").encoded())
        }
        #expect(throws: WireError.lengthOverLimit) {
            try VerifyAdminKeyRequest(
                decoding: VerifyAdminKeyRequest(
                    key: String(repeating: "k", count: IdentityLimits.adminKeyByteCountMax + 1)
                )
                .encoded()
            )
        }
        // Unknown lookups, kinds and orders.
        var lookup = FindUserRequest(by: .uid, value: "u").encoded()
        lookup.setInteger(UInt8(2), at: lookup.readerIndex)
        #expect(throws: WireError.invalidValue) { try FindUserRequest(decoding: lookup) }
        for offset in [0, 1] {
            var list = ListUsersRequest().encoded()
            list.setInteger(UInt8(3), at: list.readerIndex + offset)
            #expect(throws: WireError.invalidValue) { try ListUsersRequest(decoding: list) }
        }
    }

    @Test("Batches round-trip, answer outcomes by status, and refuse more than 1000 elements before reading them")
    func batches() throws {
        try roundTrip(
            Batch([
                BeginDeleteRequest(uid: "u1", operationID: "ttl-1", idleBeforeMilliseconds: 5),
                BeginDeleteRequest(uid: "u2", operationID: "ttl-2"),
            ])
        )
        try roundTrip(Batch([IdentityOperationRequest(uid: "u", operationID: "op")]))
        try roundTrip(
            Batch([BatchOutcome.done, BatchOutcome(status: IdentityStatus.guestStillActive, message: "busy")])
        )
        try roundTrip(Batch<BatchOutcome>([]))
        let long = BatchOutcome(status: IdentityStatus.userNotFound, message: String(repeating: "x", count: 2000))
        #expect(try BatchOutcome(decoding: long.encoded()).message.utf8.count == BatchOutcome.messageByteCountMax)

        var over = ByteBuffer()
        over.writeVarint(UInt64(Batch<IdentityOperationRequest>.countMax + 1))
        for _ in 0...Batch<IdentityOperationRequest>.countMax {
            IdentityOperationRequest(uid: "u", operationID: "o").encode(into: &over)
        }
        #expect(throws: WireError.self) { try Batch<IdentityOperationRequest>(decoding: over) }
    }

    @Test("Method ids lie in identity's range, are unique, and statuses are rejections or not-processed in 0x1nn")
    func idsAndStatuses() {
        let ids = IdentityMethods.all.map(\.id)
        #expect(Set(ids).count == ids.count)
        #expect(ids.allSatisfy { ServiceRange.identity.contains(methodID: $0) })
        for status in IdentityStatus.names.keys {
            #expect(status.rawValue & 0x0F00 == 0x0100, "\(status) is outside identity's range")
            #expect(status.retryClass != .outcomeUnknown)
        }
        #expect(IdentityStatus.name(of: IdentityStatus.credentialAlreadyInUse) == "credential-already-in-use")
        #expect(Set(IdentityStatus.names.values).count == IdentityStatus.names.count)
    }
}
