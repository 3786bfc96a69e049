import Foundation
import FoyerAPI
import FoyerWire

extension ServiceGenerators {
    static let identity = ServiceGenerators(
        service: "identity",
        table: IdentityMethods.all,
        methods: [
            MethodChecks(IdentityMethods.createGuest),
            MethodChecks(IdentityMethods.refreshSession),
            MethodChecks(IdentityMethods.verifyAccessToken),
            MethodChecks(IdentityMethods.revokeSession),
            MethodChecks(IdentityMethods.revokeAllSessions),
            MethodChecks(IdentityMethods.getJWKS),
            MethodChecks(IdentityMethods.rotateSigningKey),
            MethodChecks(IdentityMethods.getUser),
            MethodChecks(IdentityMethods.recordActivity),
            MethodChecks(IdentityMethods.linkPassword),
            MethodChecks(IdentityMethods.signInWithPassword),
            MethodChecks(IdentityMethods.startEmailLink),
            MethodChecks(IdentityMethods.completeEmailLink),
            MethodChecks(IdentityMethods.listOutbox),
            MethodChecks(IdentityMethods.completeEmailCode),
            MethodChecks(IdentityMethods.createDeviceKeyChallenge),
            MethodChecks(IdentityMethods.registerDeviceKey),
            MethodChecks(IdentityMethods.signInWithDeviceKey),
            MethodChecks(IdentityMethods.signInWithProvider),
            MethodChecks(IdentityMethods.linkProvider),
            MethodChecks(IdentityMethods.link),
            MethodChecks(IdentityMethods.deleteAccount),
            MethodChecks(IdentityMethods.finishMerge),
            MethodChecks(IdentityMethods.beginDelete),
            MethodChecks(IdentityMethods.finishDelete),
            MethodChecks(IdentityMethods.beginDeleteBatch),
            MethodChecks(IdentityMethods.finishDeleteBatch),
            MethodChecks(IdentityMethods.listStuckAccounts),
            MethodChecks(IdentityMethods.listExpiredGuests),
            MethodChecks(IdentityMethods.findUser),
            MethodChecks(IdentityMethods.listUsers),
            MethodChecks(IdentityMethods.userCounts),
            MethodChecks(IdentityMethods.createAdminKey),
            MethodChecks(IdentityMethods.listAdminKeys),
            MethodChecks(IdentityMethods.revokeAdminKey),
            MethodChecks(IdentityMethods.verifyAdminKey),
            MethodChecks(IdentityMethods.beginAdminAction),
            MethodChecks(IdentityMethods.endAdminAction),
            MethodChecks(IdentityMethods.listAdminActions),
            MethodChecks(IdentityMethods.startPasswordReset),
            MethodChecks(IdentityMethods.completePasswordReset),
            MethodChecks(IdentityMethods.changePassword),
            MethodChecks(IdentityMethods.unlinkCredential),
            MethodChecks(IdentityMethods.startEmailChange),
            MethodChecks(IdentityMethods.completeEmailChange),
            MethodChecks(IdentityMethods.setUserPlan),
            MethodChecks(IdentityMethods.setUserRoles),
            MethodChecks(IdentityMethods.rememberOperationAnswer),
            MethodChecks(IdentityMethods.listEvents),
            MethodChecks(IdentityMethods.getEvent),
            MethodChecks(IdentityMethods.replayEvent),
        ],
        details: [RoundTripCheck(ConflictDetails.self)]
    )
}

/// Identity's fields at `IdentityLimits` (decoders check lengths, and a few fields non-empty).
extension WireValues {
    mutating func uid() -> String { text(.uid, maxBytes: IdentityLimits.uidByteCountMax) }
    mutating func operationID() -> String {
        text(.printableASCII, minBytes: 1, maxBytes: IdentityLimits.operationIDByteCountMax)
    }
    mutating func email() -> String { text(maxBytes: IdentityLimits.emailByteCountMax) }
    mutating func source() -> String { text(maxBytes: IdentityLimits.sourceByteCountMax) }
    mutating func secretToken() -> String { text(.uid, maxBytes: IdentityLimits.secretTokenByteCountMax) }
    mutating func accessToken() -> String { text(.printableASCII, maxBytes: IdentityLimits.accessTokenByteCountMax) }
    mutating func idToken() -> String { text(.printableASCII, maxBytes: IdentityLimits.idTokenByteCountMax) }
    mutating func rawNonce() -> String? { optional { $0.text(maxBytes: IdentityLimits.rawNonceByteCountMax) } }
    /// An email code: six ASCII digits, each anywhere in 0–9.
    mutating func emailCode() -> String {
        String((0..<EmailCode.digitCount).map { _ in Character(String(integer(in: UInt8(0)...9))) })
    }
    mutating func authorizationCode() -> String? {
        optional { $0.text(minBytes: 1, maxBytes: IdentityLimits.authorizationCodeByteCountMax) }
    }
    mutating func millisecondsSinceEpoch() -> UInt64 { integer() }
    mutating func deviceKeyChallengeBytes() -> [UInt8] {
        bytes(minBytes: DeviceKey.challengeByteCount, maxBytes: DeviceKey.challengeByteCount)
    }
    /// Bytes of one of the lengths a public key may have (whether they are a point is identity's check).
    mutating func devicePublicKey() -> [UInt8] {
        let count = pick(DeviceKey.publicKeyByteCounts.sorted())
        return bytes(minBytes: count, maxBytes: count)
    }
}

extension CreateGuestRequest: Generated {
    static func generate(_ values: inout WireValues) -> CreateGuestRequest {
        CreateGuestRequest(
            idempotencyKey: values.text(
                .uid,
                minBytes: CreateGuestRequest.idempotencyKeyByteCountMin,
                maxBytes: IdentityLimits.idempotencyKeyByteCountMax
            ),
            uid: values.optional { values in
                String(values.bytes(minBytes: 16, maxBytes: 16).map { String(format: "%02x", $0) }.joined())
            }
        )
    }
}

extension SessionTokens: Generated {
    static func generate(_ values: inout WireValues) -> SessionTokens {
        SessionTokens(
            uid: values.uid(),
            isAnonymous: values.bool(),
            sessionID: values.text(maxBytes: IdentityLimits.sessionIDByteCountMax),
            accessToken: values.accessToken(),
            accessTokenExpiresAtMilliseconds: values.millisecondsSinceEpoch(),
            refreshToken: values.secretToken(),
            refreshTokenExpiresAtMilliseconds: values.millisecondsSinceEpoch()
        )
    }
}

extension RefreshSessionRequest: Generated {
    static func generate(_ values: inout WireValues) -> RefreshSessionRequest {
        RefreshSessionRequest(refreshToken: values.secretToken())
    }
}

extension VerifyAccessTokenRequest: Generated {
    static func generate(_ values: inout WireValues) -> VerifyAccessTokenRequest {
        VerifyAccessTokenRequest(
            accessToken: values.accessToken(),
            requirement: values.anyCase(of: TokenRequirement.self)
        )
    }
}

extension VerifiedAccessToken: Generated {
    static func generate(_ values: inout WireValues) -> VerifiedAccessToken {
        VerifiedAccessToken(
            uid: values.uid(),
            isAnonymous: values.bool(),
            sessionID: values.text(maxBytes: IdentityLimits.sessionIDByteCountMax),
            expiresAtMilliseconds: values.millisecondsSinceEpoch()
        )
    }
}

extension RevokeSessionRequest: Generated {
    static func generate(_ values: inout WireValues) -> RevokeSessionRequest {
        RevokeSessionRequest(uid: values.uid(), sessionID: values.text(maxBytes: IdentityLimits.sessionIDByteCountMax))
    }
}

extension IdentityUserRequest: Generated {
    static func generate(_ values: inout WireValues) -> IdentityUserRequest { IdentityUserRequest(uid: values.uid()) }
}

extension JWKSResponse: Generated {
    static func generate(_ values: inout WireValues) -> JWKSResponse {
        JWKSResponse(json: values.bytes(maxBytes: IdentityLimits.jwksByteCountMax))
    }
}

extension SigningKeyRotated: Generated {
    static func generate(_ values: inout WireValues) -> SigningKeyRotated {
        SigningKeyRotated(keyID: values.text(maxBytes: IdentityLimits.keyIDByteCountMax))
    }
}

extension AccountState: Generated {
    static func generate(_ values: inout WireValues) -> AccountState {
        AccountState(
            uid: values.uid(),
            kind: values.anyCase(of: AccountStateKind.self),
            mergeInto: values.optional { $0.uid() },
            operationID: values.optional { $0.text(maxBytes: IdentityLimits.operationIDByteCountMax) },
            sinceMilliseconds: values.optional { $0.millisecondsSinceEpoch() },
            mergePolicy: values.optional { $0.anyCase(of: MergePolicy.self) },
            deletionReason: values.optional { $0.anyCase(of: DeletionReason.self) }
        )
    }
}

extension LinkedIdentity: Generated {
    static func generate(_ values: inout WireValues) -> LinkedIdentity {
        LinkedIdentity(
            provider: values.anyCase(of: IdentityProvider.self),
            subject: values.text(maxBytes: IdentityLimits.subjectByteCountMax),
            email: values.optional { $0.email() },
            emailTrusted: values.bool()
        )
    }
}

extension UserInfo: Generated {
    static func generate(_ values: inout WireValues) -> UserInfo {
        UserInfo(
            uid: values.uid(),
            isAnonymous: values.bool(),
            state: values.message(),
            createdAtMilliseconds: values.millisecondsSinceEpoch(),
            lastActivityAtMilliseconds: values.millisecondsSinceEpoch(),
            email: values.optional { $0.email() },
            emailVerified: values.bool(),
            hasPassword: values.bool(),
            providers: values.list(maxCount: IdentityLimits.providersCountMax) { $0.message() }
        )
    }
}

extension LinkPasswordRequest: Generated {
    static func generate(_ values: inout WireValues) -> LinkPasswordRequest {
        LinkPasswordRequest(
            uid: values.uid(),
            email: values.email(),
            password: values.text(maxBytes: IdentityLimits.passwordByteCountMax),
            source: values.source()
        )
    }
}

extension ConflictDetails: Generated {
    static func generate(_ values: inout WireValues) -> ConflictDetails {
        ConflictDetails(
            otherUID: values.uid(),
            ticket: values.secretToken(),
            ticketExpiresAtMilliseconds: values.millisecondsSinceEpoch()
        )
    }
}

extension LinkAttempt: Generated {
    static func generate(_ values: inout WireValues) -> LinkAttempt {
        values.bool() ? .session(values.message()) : .conflict(values.message())
    }
}

extension PasswordSignInRequest: Generated {
    static func generate(_ values: inout WireValues) -> PasswordSignInRequest {
        PasswordSignInRequest(
            email: values.email(),
            password: values.text(maxBytes: IdentityLimits.passwordByteCountMax),
            source: values.source()
        )
    }
}

extension StartEmailLinkRequest: Generated {
    /// A link names the user it links; a sign-in names none.
    static func generate(_ values: inout WireValues) -> StartEmailLinkRequest {
        let purpose = values.anyCase(of: EmailLinkPurpose.self)
        return StartEmailLinkRequest(
            purpose: purpose,
            email: values.email(),
            uid: purpose == .link ? values.uid() : nil,
            verifierChallenge: values.bytes(
                minBytes: IdentityLimits.verifierChallengeByteCount,
                maxBytes: IdentityLimits.verifierChallengeByteCount
            ),
            source: values.source()
        )
    }
}

extension CompleteEmailLinkRequest: Generated {
    static func generate(_ values: inout WireValues) -> CompleteEmailLinkRequest {
        CompleteEmailLinkRequest(
            token: values.secretToken(),
            verifier: values.bytes(minBytes: 1, maxBytes: IdentityLimits.verifierByteCountMax),
            uid: values.optional { $0.uid() }
        )
    }
}

extension CompleteEmailCodeRequest: Generated {
    static func generate(_ values: inout WireValues) -> CompleteEmailCodeRequest {
        CompleteEmailCodeRequest(email: values.email(), code: values.emailCode(), uid: values.optional { $0.uid() })
    }
}

extension ListOutboxRequest: Generated {
    static func generate(_ values: inout WireValues) -> ListOutboxRequest {
        ListOutboxRequest(
            recipient: values.optional { $0.email() },
            limit: values.integer(in: 1...UInt32(IdentityLimits.listCountMax))
        )
    }
}

extension OutboxMessage: Generated {
    static func generate(_ values: inout WireValues) -> OutboxMessage {
        OutboxMessage(
            id: values.text(maxBytes: 64),
            recipient: values.email(),
            subject: values.text(maxBytes: IdentityLimits.mailSubjectByteCountMax),
            body: values.text(maxBytes: IdentityLimits.mailBodyByteCountMax),
            createdAtMilliseconds: values.millisecondsSinceEpoch()
        )
    }
}

extension OutboxMessages: Generated {
    static func generate(_ values: inout WireValues) -> OutboxMessages {
        OutboxMessages(messages: values.list(maxCount: IdentityLimits.listCountMax) { $0.message() })
    }
}

extension ProviderSignInRequest: Generated {
    static func generate(_ values: inout WireValues) -> ProviderSignInRequest {
        ProviderSignInRequest(
            provider: values.anyCase(of: IdentityProvider.self),
            idToken: values.idToken(),
            rawNonce: values.rawNonce(),
            authorizationCode: values.authorizationCode()
        )
    }
}

extension LinkProviderRequest: Generated {
    static func generate(_ values: inout WireValues) -> LinkProviderRequest {
        LinkProviderRequest(
            uid: values.uid(),
            provider: values.anyCase(of: IdentityProvider.self),
            idToken: values.idToken(),
            rawNonce: values.rawNonce(),
            authorizationCode: values.authorizationCode()
        )
    }
}

extension CallerOperation {
    static func generate(_ values: inout WireValues) -> CallerOperation {
        CallerOperation(
            accessToken: values.accessToken(),
            requirement: values.anyCase(of: TokenRequirement.self),
            operationID: values.operationID(),
            answerID: values.bytes(minBytes: 32, maxBytes: 32)
        )
    }
}

extension RememberedAnswer {
    static func generate(_ values: inout WireValues) -> RememberedAnswer {
        RememberedAnswer(
            check: values.bytes(minBytes: 32, maxBytes: 32),
            sealed: values.bytes(minBytes: 1, maxBytes: OperationAnswerLimits.sealedByteCountMax)
        )
    }
}

extension LinkAccountRequest: Generated {
    static func generate(_ values: inout WireValues) -> LinkAccountRequest {
        LinkAccountRequest(
            operation: .generate(&values),
            proof: values.bool() ? .credential(values.credential()) : .ticket(values.secretToken()),
            onConflict: values.anyCase(of: ConflictChoice.self),
            mergePolicy: values.anyCase(of: MergePolicy.self),
            source: values.source()
        )
    }
}

extension LinkStep: Generated {
    static func generate(_ values: inout WireValues) -> LinkStep {
        switch values.integer(in: 0...5 as ClosedRange<UInt8>) {
        case 0: .linked(values.message(), wasGuest: values.bool())
        case 1: .conflict(values.message())
        case 2: .begun(account: values.message(), guest: values.message())
        case 3: .continuing(values.message())
        case 4: .finished
        default: .recalled(.generate(&values))
        }
    }
}

extension DeleteAccountRequest: Generated {
    static func generate(_ values: inout WireValues) -> DeleteAccountRequest {
        DeleteAccountRequest(operation: .generate(&values), guestOnly: values.bool())
    }
}

extension DeletionStep: Generated {
    static func generate(_ values: inout WireValues) -> DeletionStep {
        switch values.integer(in: 0...4 as ClosedRange<UInt8>) {
        case 0: .begun(values.message())
        case 1: .continuing(values.message())
        case 2: .finished
        case 3: .recalled(.generate(&values))
        default: .signedOut
        }
    }
}

extension IdentityOperationRequest: Generated {
    static func generate(_ values: inout WireValues) -> IdentityOperationRequest {
        IdentityOperationRequest(uid: values.uid(), operationID: values.operationID())
    }
}

extension BeginDeleteRequest: Generated {
    static func generate(_ values: inout WireValues) -> BeginDeleteRequest {
        BeginDeleteRequest(
            uid: values.uid(),
            operationID: values.operationID(),
            reason: values.anyCase(of: DeletionReason.self),
            idleBeforeMilliseconds: values.optional { $0.millisecondsSinceEpoch() }
        )
    }
}

extension ListStuckAccountsRequest: Generated {
    static func generate(_ values: inout WireValues) -> ListStuckAccountsRequest {
        ListStuckAccountsRequest(
            olderThanSeconds: values.integer(),
            limit: values.integer(in: 1...UInt32(IdentityLimits.listCountMax))
        )
    }
}

extension StuckAccounts: Generated {
    static func generate(_ values: inout WireValues) -> StuckAccounts {
        StuckAccounts(accounts: values.list(maxCount: IdentityLimits.listCountMax) { $0.message() })
    }
}

extension ExpiredGuest: Generated {
    static func generate(_ values: inout WireValues) -> ExpiredGuest {
        ExpiredGuest(uid: values.uid(), lastActivityAtMilliseconds: values.millisecondsSinceEpoch())
    }
}

extension ListExpiredGuestsRequest: Generated {
    static func generate(_ values: inout WireValues) -> ListExpiredGuestsRequest {
        ListExpiredGuestsRequest(
            idleBeforeMilliseconds: values.millisecondsSinceEpoch(),
            limit: values.integer(in: 1...UInt32(IdentityLimits.listCountMax)),
            after: values.optional { $0.message() }
        )
    }
}

extension ExpiredGuests: Generated {
    static func generate(_ values: inout WireValues) -> ExpiredGuests {
        ExpiredGuests(
            guests: values.list(maxCount: IdentityLimits.listCountMax) { $0.message() },
            next: values.optional { $0.message() }
        )
    }
}

extension CreateDeviceKeyChallengeRequest: Generated {
    static func generate(_ values: inout WireValues) -> CreateDeviceKeyChallengeRequest {
        CreateDeviceKeyChallengeRequest(purpose: values.anyCase(of: DeviceKeyPurpose.self))
    }
}

extension DeviceKeyChallenge: Generated {
    static func generate(_ values: inout WireValues) -> DeviceKeyChallenge {
        DeviceKeyChallenge(
            challenge: values.deviceKeyChallengeBytes(),
            issuer: values.text(maxBytes: DeviceKey.issuerByteCountMax),
            expiresAtMilliseconds: values.millisecondsSinceEpoch()
        )
    }
}

extension RegisterDeviceKeyRequest: Generated {
    static func generate(_ values: inout WireValues) -> RegisterDeviceKeyRequest {
        RegisterDeviceKeyRequest(
            uid: values.uid(),
            publicKey: values.devicePublicKey(),
            challenge: values.deviceKeyChallengeBytes(),
            signature: values.bytes(minBytes: DeviceKey.signatureByteCount, maxBytes: DeviceKey.signatureByteCount)
        )
    }
}

extension DeviceKeyRegistered: Generated {
    static func generate(_ values: inout WireValues) -> DeviceKeyRegistered {
        DeviceKeyRegistered(keyID: values.bytes(minBytes: DeviceKey.keyIDByteCount, maxBytes: DeviceKey.keyIDByteCount))
    }
}

extension DeviceKeySignInRequest: Generated {
    static func generate(_ values: inout WireValues) -> DeviceKeySignInRequest {
        DeviceKeySignInRequest(
            keyID: values.bytes(minBytes: DeviceKey.keyIDByteCount, maxBytes: DeviceKey.keyIDByteCount),
            challenge: values.deviceKeyChallengeBytes(),
            signature: values.bytes(minBytes: DeviceKey.signatureByteCount, maxBytes: DeviceKey.signatureByteCount)
        )
    }
}
