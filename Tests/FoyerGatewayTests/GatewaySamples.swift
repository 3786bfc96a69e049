import FoyerAPI
import NIOCore

/// Representative values of the gateway's messages and of the messages of other services it answers with: a
/// typical value, empty strings and zero numbers, every field at its cap, optionals absent and present, every
/// enum case.
enum GatewaySamples {
    static let accessToken = "eyJhbGciOiJFZERTQSIsImtpZCI6ImsxIn0.eyJzdWIiOiJ1MSJ9.c2lnbmF0dXJl"
    static let operationID = "3f2504e0-4f89-11d3-9a0c-0305e82c3301"
    static let challenge = [UInt8](repeating: 0xAB, count: IdentityLimits.verifierChallengeByteCount)

    /// A string of exactly `count` UTF-8 bytes.
    static func ascii(_ count: Int) -> String { String(repeating: "x", count: count) }

    /// A string of exactly `count` UTF-8 bytes, mostly two-byte characters (caps count bytes, not characters).
    static func multibyte(_ count: Int) -> String {
        String(repeating: "é", count: count / 2) + (count.isMultiple(of: 2) ? "" : "x")
    }

    /// A buffer of exactly `count` bytes.
    static func bytes(_ count: Int, _ value: UInt8 = 0x5A) -> ByteBuffer {
        ByteBuffer(repeating: value, count: count)
    }

    // MARK: Credentials

    static var credentials: [Credential] {
        var credentials: [Credential] = [
            .password(email: "someone@example.com", password: "a long passphrase"),
            .password(email: "", password: ""),
            .password(
                email: multibyte(IdentityLimits.emailByteCountMax),
                password: multibyte(IdentityLimits.passwordByteCountMax)
            ),
            .emailLink(token: "dGhlIHRva2Vu", verifier: Array("the client's secret".utf8)),
            .emailLink(token: "", verifier: [0]),
            .emailLink(
                token: ascii(IdentityLimits.secretTokenByteCountMax),
                verifier: Array(repeating: 0xFF, count: IdentityLimits.verifierByteCountMax)
            ),
        ]
        for provider in IdentityProvider.allCases {
            credentials += [
                .idToken(provider: provider, idToken: "header.payload.signature", rawNonce: nil),
                .idToken(provider: provider, idToken: "", rawNonce: ""),
                .idToken(
                    provider: provider,
                    idToken: ascii(IdentityLimits.idTokenByteCountMax),
                    rawNonce: multibyte(IdentityLimits.rawNonceByteCountMax)
                ),
                .idToken(provider: provider, idToken: "h.p.s", rawNonce: "n", authorizationCode: "c"),
                .idToken(
                    provider: provider,
                    idToken: "h.p.s",
                    rawNonce: nil,
                    authorizationCode: multibyte(IdentityLimits.authorizationCodeByteCountMax)
                ),
            ]
        }
        credentials += [
            .emailCode(email: "someone@example.com", code: "012345"),
            .emailCode(email: "", code: "999999"),
            .emailCode(email: multibyte(IdentityLimits.emailByteCountMax), code: "000000"),
            .deviceKey(keyID: deviceKeyID, challenge: deviceKeyChallenge, signature: deviceKeySignature),
            .deviceKey(
                keyID: Array(repeating: 0, count: DeviceKey.keyIDByteCount),
                challenge: Array(repeating: 0xFF, count: DeviceKey.challengeByteCount),
                signature: Array(repeating: 0, count: DeviceKey.signatureByteCount)
            ),
        ]
        return credentials
    }

    // MARK: Device keys

    static let deviceKeyID = (0..<DeviceKey.keyIDByteCount).map { UInt8($0) }
    static let deviceKeyChallenge = (0..<DeviceKey.challengeByteCount).map { UInt8(0x80 + $0) }
    static let deviceKeySignature = (0..<DeviceKey.signatureByteCount).map { UInt8(0xC0 ^ $0) }
    /// Public keys of each accepted length (the wire checks lengths; identity checks the point).
    static let devicePublicKeys = DeviceKey.publicKeyByteCounts.sorted().map { count in
        [UInt8](repeating: 0x11, count: count)
    }

    static var deviceKeyRegisterRequests: [DeviceKeyRegisterRequest] {
        devicePublicKeys.map { key in
            DeviceKeyRegisterRequest(
                accessToken: accessToken,
                publicKey: key,
                challenge: deviceKeyChallenge,
                signature: deviceKeySignature
            )
        } + [
            DeviceKeyRegisterRequest(
                accessToken: ascii(IdentityLimits.accessTokenByteCountMax),
                publicKey: devicePublicKeys[0],
                challenge: deviceKeyChallenge,
                signature: deviceKeySignature
            )
        ]
    }

    static let deviceKeyChallenges = [
        DeviceKeyChallenge(challenge: deviceKeyChallenge, issuer: "https://foyer.example", expiresAtMilliseconds: 0),
        DeviceKeyChallenge(
            challenge: deviceKeyChallenge,
            issuer: multibyte(DeviceKey.issuerByteCountMax),
            expiresAtMilliseconds: .max
        ),
    ]

    // MARK: Sign-up checks

    static let signUpProofs: [SignUpProof] = [
        .proofOfWork(challenge: Array(repeating: 0x5A, count: 58), nonce: [0, 0, 0, 0, 0, 0, 0x12, 0x34]),
        .proofOfWork(challenge: [1], nonce: [0]),
        .proofOfWork(
            challenge: Array(repeating: 0xFF, count: SignUpProof.challengeByteCountMax),
            nonce: Array(repeating: 0xFF, count: SignUpProof.nonceByteCountMax)
        ),
        .siteverify(token: "XXXX.DUMMY.TOKEN.XXXX"),
        .siteverify(token: "t"),
        .siteverify(token: multibyte(SignUpProof.tokenByteCountMax)),
    ]

    static let checkedGuestSignIns: [CheckedGuestSignInRequest] =
        [CheckedGuestSignInRequest(idempotencyKey: "0123456789abcdef0123456789abcdef", proof: nil)]
        + signUpProofs.map { CheckedGuestSignInRequest(idempotencyKey: operationID, proof: $0) }
        + [CheckedGuestSignInRequest(idempotencyKey: ascii(16), loadTestSource: "192.0.2.7", proof: signUpProofs[0])]

    static let signUpChallenges = [
        SignUpChallenge(
            challenge: Array(repeating: 0x5A, count: 58),
            difficulty: 18,
            expiresAtMilliseconds: 1_790_000_000_000
        ),
        SignUpChallenge(challenge: [0], difficulty: 0, expiresAtMilliseconds: 0),
        SignUpChallenge(
            challenge: Array(repeating: 0xFF, count: SignUpProof.challengeByteCountMax),
            difficulty: SignUpChallenge.difficultyMax,
            expiresAtMilliseconds: .max
        ),
    ]

    // MARK: Sessions and accounts

    static let sessions = [
        SessionTokens(
            uid: "u1",
            isAnonymous: true,
            sessionID: "s1",
            accessToken: accessToken,
            accessTokenExpiresAtMilliseconds: 1_790_000_000_000,
            refreshToken: "cmVmcmVzaA",
            refreshTokenExpiresAtMilliseconds: 1_800_000_000_000
        ),
        SessionTokens(
            uid: "",
            isAnonymous: false,
            sessionID: "",
            accessToken: "",
            accessTokenExpiresAtMilliseconds: 0,
            refreshToken: "",
            refreshTokenExpiresAtMilliseconds: 0
        ),
        SessionTokens(
            uid: ascii(IdentityLimits.uidByteCountMax),
            isAnonymous: false,
            sessionID: ascii(IdentityLimits.sessionIDByteCountMax),
            accessToken: ascii(IdentityLimits.accessTokenByteCountMax),
            accessTokenExpiresAtMilliseconds: .max,
            refreshToken: ascii(IdentityLimits.secretTokenByteCountMax),
            refreshTokenExpiresAtMilliseconds: .max
        ),
    ]

    static var accountStates: [AccountState] {
        AccountStateKind.allCases.map { AccountState(uid: "u1", kind: $0) } + [
            AccountState(uid: "", kind: .merging, mergeInto: "", operationID: "", sinceMilliseconds: 0),
            AccountState(
                uid: ascii(IdentityLimits.uidByteCountMax),
                kind: .deleting,
                mergeInto: ascii(IdentityLimits.uidByteCountMax),
                operationID: ascii(IdentityLimits.operationIDByteCountMax),
                sinceMilliseconds: .max
            ),
        ]
    }

    static var linkedIdentities: [LinkedIdentity] {
        IdentityProvider.allCases.map { LinkedIdentity(provider: $0, subject: "sub", email: nil, emailTrusted: false) }
            + [
                LinkedIdentity(provider: .google, subject: "", email: "", emailTrusted: true),
                LinkedIdentity(
                    provider: .apple,
                    subject: ascii(IdentityLimits.subjectByteCountMax),
                    email: multibyte(IdentityLimits.emailByteCountMax),
                    emailTrusted: true
                ),
            ]
    }

    static var users: [UserInfo] {
        accountStates.map { state in
            UserInfo(
                uid: state.uid,
                isAnonymous: state.kind == .active,
                state: state,
                createdAtMilliseconds: 1,
                lastActivityAtMilliseconds: 2,
                email: nil,
                emailVerified: false,
                hasPassword: false,
                providers: []
            )
        } + [
            UserInfo(
                uid: ascii(IdentityLimits.uidByteCountMax),
                isAnonymous: false,
                state: AccountState(uid: ascii(IdentityLimits.uidByteCountMax), kind: .active),
                createdAtMilliseconds: .max,
                lastActivityAtMilliseconds: .max,
                email: multibyte(IdentityLimits.emailByteCountMax),
                emailVerified: true,
                hasPassword: true,
                providers: Array(
                    repeating: linkedIdentities.last!,
                    count: IdentityLimits.providersCountMax
                )
            ),
            UserInfo(
                uid: "",
                isAnonymous: false,
                state: AccountState(uid: "", kind: .active),
                createdAtMilliseconds: 0,
                lastActivityAtMilliseconds: 0,
                email: "",
                emailVerified: false,
                hasPassword: true,
                providers: linkedIdentities
            ),
        ]
    }

    static let usages = [
        QuotaUsageResponse(
            plan: "guest",
            counters: [CounterUsage(counter: "documents", limit: 20, used: 3)],
            features: [FeatureFlag(feature: "import", enabled: false)]
        ),
        QuotaUsageResponse(plan: "", counters: [], features: []),
        // Empty names take the fewest bytes an element can: lists of them must still decode.
        QuotaUsageResponse(
            plan: "",
            counters: Array(repeating: CounterUsage(counter: "", limit: 0, used: 0), count: 3),
            features: Array(repeating: FeatureFlag(feature: "", enabled: false), count: 3)
        ),
        QuotaUsageResponse(
            plan: ascii(GuestQuotaLimits.nameByteCountMax),
            counters: [
                CounterUsage(counter: ascii(GuestQuotaLimits.nameByteCountMax), limit: .max, used: .max),
                CounterUsage(counter: "bytes", limit: 1, used: .max),
            ],
            features: [FeatureFlag(feature: ascii(GuestQuotaLimits.nameByteCountMax), enabled: true)]
        ),
    ]

    /// `consumeCounter` and `releaseCounter`: the smallest and largest amount, names and keys at their caps.
    static let counterRequests = [
        GatewayCounterRequest(accessToken: accessToken, counter: "transactions", amount: 1, idempotencyKey: "k"),
        GatewayCounterRequest(
            accessToken: ascii(IdentityLimits.accessTokenByteCountMax),
            counter: ascii(GuestQuotaLimits.nameByteCountMax),
            amount: UInt64(GuestQuotaLimits.consumeAmountMax),
            idempotencyKey: ascii(GatewayLimits.operationIDByteCountMax)
        ),
        GatewayCounterRequest(accessToken: "", counter: "", amount: 3, idempotencyKey: operationID),
    ]

    /// The answer of `consumeCounter` and `releaseCounter`.
    static let counterUsages = [
        CounterUsage(counter: "transactions", limit: 20, used: 3),
        CounterUsage(counter: "uploads", limit: 3, used: 5),
        CounterUsage(counter: ascii(GuestQuotaLimits.nameByteCountMax), limit: .max, used: .max),
    ]

    // MARK: Documents and merges

    static let documents = [
        StoredDocument(
            collection: "notes",
            key: "n1",
            value: ByteBuffer(string: "note 1"),
            version: 1,
            updatedAtMicroseconds: 1_790_000_000_000_000
        ),
        StoredDocument(collection: "", key: "", value: ByteBuffer(), version: 0, updatedAtMicroseconds: 0),
        StoredDocument(
            collection: ascii(UserDataLimits.collectionByteCountMax),
            key: multibyte(UserDataLimits.keyByteCountMax),
            value: bytes(300),
            version: .max,
            updatedAtMicroseconds: .min
        ),
    ]

    static let pages = [
        DocumentPage(documents: [], nextCursor: nil),
        DocumentPage(documents: documents, nextCursor: bytes(UserDataLimits.cursorByteCountMax)),
        DocumentPage(documents: [documents[0]], nextCursor: ByteBuffer()),
        // The smallest documents there are: a list of them must still decode.
        DocumentPage(documents: Array(repeating: documents[1], count: 3), nextCursor: nil),
    ]

    /// The conflict a link answers: ordinary, empty, and every field at its cap.
    static let conflicts = [
        ConflictDetails(otherUID: "u2", ticket: "dGlja2V0", ticketExpiresAtMilliseconds: 1_790_000_000_000),
        ConflictDetails(otherUID: "", ticket: "", ticketExpiresAtMilliseconds: 0),
        ConflictDetails(
            otherUID: ascii(IdentityLimits.uidByteCountMax),
            ticket: ascii(IdentityLimits.secretTokenByteCountMax),
            ticketExpiresAtMilliseconds: .max
        ),
    ]

    static let mergeReports = [
        MergeReport(),
        MergeReport(
            moved: 3,
            conflicts: 3,
            keptAccount: 1,
            keptGuest: 1,
            keptBoth: 1,
            listedConflicts: [
                .init(collection: "notes", key: "a", resolution: .keptAccount),
                .init(collection: "notes", key: "b", resolution: .keptGuest),
                .init(collection: "notes", key: "c", resolution: .keptBoth, derivedKey: "c~guest-0a1b2c3d"),
            ]
        ),
        MergeReport(
            moved: .max,
            conflicts: .max,
            keptAccount: .max,
            keptGuest: .max,
            keptBoth: .max,
            listedConflicts: [
                .init(collection: "", key: "", resolution: .keptBoth, derivedKey: ""),
                .init(
                    collection: ascii(UserDataLimits.collectionByteCountMax),
                    key: multibyte(UserDataLimits.keyByteCountMax),
                    resolution: .keptBoth,
                    derivedKey: multibyte(UserDataLimits.keyByteCountMax)
                ),
            ]
        ),
    ]
}
