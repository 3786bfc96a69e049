import FoyerAPI
import FoyerWire

extension ServiceGenerators {
    static let gateway = ServiceGenerators(
        service: "gateway",
        table: GatewayMethods.all,
        methods: [
            MethodChecks(GatewayMethods.guestSignIn),
            MethodChecks(GatewayMethods.signIn),
            MethodChecks(GatewayMethods.refresh),
            MethodChecks(GatewayMethods.startEmailLink),
            MethodChecks(GatewayMethods.signOut),
            MethodChecks(GatewayMethods.me),
            MethodChecks(GatewayMethods.quota),
            MethodChecks(GatewayMethods.link),
            MethodChecks(GatewayMethods.resolveConflict),
            MethodChecks(GatewayMethods.deleteAccount),
            MethodChecks(GatewayMethods.checkFeature),
            MethodChecks(GatewayMethods.consumeCounter),
            MethodChecks(GatewayMethods.releaseCounter),
            MethodChecks(GatewayMethods.putDocument),
            MethodChecks(GatewayMethods.getDocument),
            MethodChecks(GatewayMethods.listDocuments),
            MethodChecks(GatewayMethods.deleteDocument),
            MethodChecks(GatewayMethods.exportDocuments),
            MethodChecks(GatewayMethods.importDocuments),
            MethodChecks(GatewayMethods.jwks),
            MethodChecks(GatewayMethods.startPasswordReset),
            MethodChecks(GatewayMethods.completePasswordReset),
            MethodChecks(GatewayMethods.changePassword),
            MethodChecks(GatewayMethods.signOutEverywhere),
            MethodChecks(GatewayMethods.unlinkCredential),
            MethodChecks(GatewayMethods.startEmailChange),
            MethodChecks(GatewayMethods.completeEmailChange),
            MethodChecks(GatewayMethods.deviceKeyChallenge),
            MethodChecks(GatewayMethods.registerDeviceKey),
            MethodChecks(GatewayMethods.signUpChallenge),
            MethodChecks(GatewayMethods.guestSignInWithCheck),
        ],
        details: [RoundTripCheck(ConflictDetails.self), RoundTripCheck(QuotaExceededDetails.self)]
    )
}

/// The gateway's own fields; the rest are identity's and user-data's (`Identity+Generated.swift`,
/// `UserData+Generated.swift`).
extension WireValues {
    mutating func gatewayOperationID() -> String {
        text(.printableASCII, minBytes: 1, maxBytes: GatewayLimits.operationIDByteCountMax)
    }
    mutating func pageSize() -> UInt64 { integer(in: 1...UInt64(UserDataLimits.pageSizeLimit)) }

    /// Each kind of credential: password, email link, email code, device key, ID token with and without a nonce and
    /// an authorization code.
    mutating func credential() -> Credential {
        switch integer(in: UInt8(0)...4) {
        case 0:
            .password(email: email(), password: text(maxBytes: IdentityLimits.passwordByteCountMax))
        case 1:
            .emailLink(
                token: secretToken(),
                verifier: bytes(minBytes: 1, maxBytes: IdentityLimits.verifierByteCountMax)
            )
        case 2:
            .emailCode(email: email(), code: emailCode())
        case 3:
            .deviceKey(
                keyID: bytes(minBytes: DeviceKey.keyIDByteCount, maxBytes: DeviceKey.keyIDByteCount),
                challenge: deviceKeyChallengeBytes(),
                signature: bytes(minBytes: DeviceKey.signatureByteCount, maxBytes: DeviceKey.signatureByteCount)
            )
        default:
            .idToken(
                provider: anyCase(of: IdentityProvider.self),
                idToken: idToken(),
                rawNonce: rawNonce(),
                authorizationCode: authorizationCode()
            )
        }
    }
}

extension GuestSignInRequest: Generated {
    static func generate(_ values: inout WireValues) -> GuestSignInRequest {
        GuestSignInRequest(
            idempotencyKey: values.gatewayOperationID(),
            loadTestSource: values.optional { $0.text(maxBytes: 64) }
        )
    }
}

extension CheckedGuestSignInRequest: Generated {
    static func generate(_ values: inout WireValues) -> CheckedGuestSignInRequest {
        CheckedGuestSignInRequest(
            idempotencyKey: values.gatewayOperationID(),
            loadTestSource: values.optional { $0.text(maxBytes: 64) },
            proof: values.optional { values in
                values.bool()
                    ? .proofOfWork(
                        challenge: values.bytes(minBytes: 1, maxBytes: SignUpProof.challengeByteCountMax),
                        nonce: values.bytes(minBytes: 1, maxBytes: SignUpProof.nonceByteCountMax)
                    )
                    : .siteverify(token: values.text(minBytes: 1, maxBytes: SignUpProof.tokenByteCountMax))
            }
        )
    }
}

extension SignUpChallenge: Generated {
    static func generate(_ values: inout WireValues) -> SignUpChallenge {
        SignUpChallenge(
            challenge: values.bytes(minBytes: 1, maxBytes: SignUpProof.challengeByteCountMax),
            difficulty: values.integer(in: 0...SignUpChallenge.difficultyMax),
            expiresAtMilliseconds: values.integer()
        )
    }
}

extension SignInRequest: Generated {
    static func generate(_ values: inout WireValues) -> SignInRequest { SignInRequest(credential: values.credential()) }
}

extension EmailLinkStartRequest: Generated {
    static func generate(_ values: inout WireValues) -> EmailLinkStartRequest {
        EmailLinkStartRequest(
            purpose: values.anyCase(of: EmailLinkPurpose.self),
            email: values.email(),
            accessToken: values.optional { $0.accessToken() },
            verifierChallenge: values.bytes(
                minBytes: IdentityLimits.verifierChallengeByteCount,
                maxBytes: IdentityLimits.verifierChallengeByteCount
            )
        )
    }
}

extension OperationRequest: Generated {
    static func generate(_ values: inout WireValues) -> OperationRequest {
        OperationRequest(accessToken: values.accessToken(), operationID: values.gatewayOperationID())
    }
}

extension SignOutResponse: Generated {
    static func generate(_ values: inout WireValues) -> SignOutResponse {
        SignOutResponse(accountDeleted: values.bool())
    }
}

extension AuthenticatedRequest: Generated {
    static func generate(_ values: inout WireValues) -> AuthenticatedRequest {
        AuthenticatedRequest(accessToken: values.accessToken())
    }
}

extension GatewayFeatureRequest: Generated {
    static func generate(_ values: inout WireValues) -> GatewayFeatureRequest {
        GatewayFeatureRequest(accessToken: values.accessToken(), feature: values.quotaName())
    }
}

extension MeResponse: Generated {
    static func generate(_ values: inout WireValues) -> MeResponse {
        MeResponse(user: values.message(), usage: values.message())
    }
}

extension LinkRequest: Generated {
    static func generate(_ values: inout WireValues) -> LinkRequest {
        LinkRequest(
            accessToken: values.accessToken(),
            credential: values.credential(),
            onConflict: values.anyCase(of: ConflictChoice.self),
            mergePolicy: values.anyCase(of: MergePolicy.self),
            operationID: values.gatewayOperationID()
        )
    }
}

extension LinkResult: Generated {
    static func generate(_ values: inout WireValues) -> LinkResult {
        switch values.anyCase(of: LinkOutcome.self) {
        case .linked: .linked(values.message())
        case .merged: .merged(values.message(), values.message())
        case .discarded: .discarded(values.message())
        case .conflict: .conflict(values.message())
        }
    }
}

extension ResolveConflictRequest: Generated {
    /// Merge or discard: `fail` is no answer to a conflict already met.
    static func generate(_ values: inout WireValues) -> ResolveConflictRequest {
        ResolveConflictRequest(
            accessToken: values.accessToken(),
            ticket: values.secretToken(),
            choice: values.pick([.merge, .discard]),
            mergePolicy: values.anyCase(of: MergePolicy.self),
            operationID: values.gatewayOperationID()
        )
    }
}

extension DeletionReport: Generated {
    static func generate(_ values: inout WireValues) -> DeletionReport {
        DeletionReport(documentsDeleted: values.integer())
    }
}

extension GatewayCounterRequest: Generated {
    static func generate(_ values: inout WireValues) -> GatewayCounterRequest {
        GatewayCounterRequest(
            accessToken: values.accessToken(),
            counter: values.quotaName(),
            amount: values.integer(in: 1...UInt64(GuestQuotaLimits.consumeAmountMax)),
            idempotencyKey: values.gatewayOperationID()
        )
    }
}

extension GatewayPutRequest: Generated {
    static func generate(_ values: inout WireValues) -> GatewayPutRequest {
        GatewayPutRequest(
            accessToken: values.accessToken(),
            collection: values.wireCollection(),
            key: values.wireKey(),
            value: values.value(),
            expectedVersion: values.optional { $0.integer() },
            idempotencyKey: values.gatewayOperationID()
        )
    }
}

extension GatewayDocumentRequest: Generated {
    static func generate(_ values: inout WireValues) -> GatewayDocumentRequest {
        GatewayDocumentRequest(
            accessToken: values.accessToken(),
            collection: values.wireCollection(),
            key: values.wireKey()
        )
    }
}

extension GatewayListRequest: Generated {
    static func generate(_ values: inout WireValues) -> GatewayListRequest {
        GatewayListRequest(
            accessToken: values.accessToken(),
            collection: values.wireCollection(),
            cursor: values.cursor(),
            pageSize: values.pageSize()
        )
    }
}

extension GatewayExportRequest: Generated {
    static func generate(_ values: inout WireValues) -> GatewayExportRequest {
        GatewayExportRequest(accessToken: values.accessToken(), cursor: values.cursor(), pageSize: values.pageSize())
    }
}

extension GatewayImportRequest: Generated {
    static func generate(_ values: inout WireValues) -> GatewayImportRequest {
        GatewayImportRequest(
            accessToken: values.accessToken(),
            collection: values.wireCollection(),
            documents: values.list(maxCount: GatewayLimits.importCountMax) {
                Entry(key: $0.wireKey(), value: $0.value())
            },
            idempotencyKey: values.gatewayOperationID()
        )
    }
}

extension ImportResponse: Generated {
    static func generate(_ values: inout WireValues) -> ImportResponse { ImportResponse(written: values.integer()) }
}

extension DeviceKeyRegisterRequest: Generated {
    static func generate(_ values: inout WireValues) -> DeviceKeyRegisterRequest {
        DeviceKeyRegisterRequest(
            accessToken: values.accessToken(),
            publicKey: values.devicePublicKey(),
            challenge: values.deviceKeyChallengeBytes(),
            signature: values.bytes(minBytes: DeviceKey.signatureByteCount, maxBytes: DeviceKey.signatureByteCount)
        )
    }
}
