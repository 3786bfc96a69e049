import FoyerAPI
import FoyerTestSupport
import FoyerWire
import NIOCore
import Testing

@Suite("Gateway contract: every method's request and response round-trip")
struct GatewayMethodsTests {
    typealias Samples = GatewaySamples

    /// Round-trips, truncates at every byte and extends by a byte each request and response given for `method`;
    /// the method's type parameters make sure the samples are of its request and response types.
    private func check<Request: WireMessage & Equatable, Response: WireMessage & Equatable>(
        _ method: RPCMethod<Request, Response>,
        requests: [Request],
        responses: [Response],
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        #expect(!requests.isEmpty && !responses.isEmpty, "\(method) has no samples", sourceLocation: sourceLocation)
        for request in requests { try WireMessageChecks.roundTrip(request) }
        for response in responses { try WireMessageChecks.roundTrip(response) }
    }

    private var operations: [OperationRequest] {
        [
            OperationRequest(accessToken: Samples.accessToken, operationID: Samples.operationID),
            OperationRequest(accessToken: "", operationID: "o"),
            OperationRequest(
                accessToken: Samples.ascii(IdentityLimits.accessTokenByteCountMax),
                operationID: Samples.multibyte(GatewayLimits.operationIDByteCountMax)
            ),
        ]
    }

    private var authenticated: [AuthenticatedRequest] {
        [
            AuthenticatedRequest(accessToken: Samples.accessToken), AuthenticatedRequest(accessToken: ""),
            AuthenticatedRequest(accessToken: Samples.multibyte(IdentityLimits.accessTokenByteCountMax)),
        ]
    }

    @Test("Sessions: guestSignIn, signIn, refresh, startEmailLink, signOut")
    func sessions() throws {
        try check(
            GatewayMethods.guestSignIn,
            requests: [
                GuestSignInRequest(idempotencyKey: "0123456789abcdef0123456789abcdef"),
                GuestSignInRequest(idempotencyKey: Samples.ascii(16), loadTestSource: ""),
                GuestSignInRequest(
                    idempotencyKey: Samples.ascii(GatewayLimits.operationIDByteCountMax),
                    loadTestSource: "2001:db8::1"
                ),
                GuestSignInRequest(idempotencyKey: Samples.ascii(16), loadTestSource: Samples.ascii(64)),
            ],
            responses: Samples.sessions
        )
        try check(
            GatewayMethods.signIn,
            requests: Samples.credentials.map { SignInRequest(credential: $0) },
            responses: Samples.sessions
        )
        try check(
            GatewayMethods.refresh,
            requests: [
                RefreshSessionRequest(refreshToken: "cmVmcmVzaA"), RefreshSessionRequest(refreshToken: ""),
                RefreshSessionRequest(refreshToken: Samples.ascii(IdentityLimits.secretTokenByteCountMax)),
            ],
            responses: Samples.sessions
        )
        try check(
            GatewayMethods.startEmailLink,
            requests: EmailLinkPurpose.allCases.flatMap { purpose in
                [
                    EmailLinkStartRequest(
                        purpose: purpose,
                        email: "someone@example.com",
                        accessToken: nil,
                        verifierChallenge: Samples.challenge
                    ),
                    EmailLinkStartRequest(
                        purpose: purpose,
                        email: "",
                        accessToken: "",
                        verifierChallenge: Array(repeating: 0, count: IdentityLimits.verifierChallengeByteCount)
                    ),
                    EmailLinkStartRequest(
                        purpose: purpose,
                        email: Samples.multibyte(IdentityLimits.emailByteCountMax),
                        accessToken: Samples.ascii(IdentityLimits.accessTokenByteCountMax),
                        verifierChallenge: Samples.challenge
                    ),
                ]
            },
            responses: [Empty()]
        )
        try check(
            GatewayMethods.signOut,
            requests: operations,
            responses: [SignOutResponse(accountDeleted: true), SignOutResponse(accountDeleted: false)]
        )
    }

    @Test("An app counter's amount is 1 to 2^40 and its key 1-128 bytes: anything else does not decode")
    func counterAmountAndKey() {
        let request = GatewayCounterRequest(accessToken: "t", counter: "uploads", amount: 1, idempotencyKey: "k")
        for amount in [0, UInt64(GuestQuotaLimits.consumeAmountMax) + 1, .max] {
            var bad = request
            bad.amount = amount
            #expect(throws: WireError.invalidValue("counter.amount")) {
                try GatewayCounterRequest(decoding: bad.encoded())
            }
        }
        var keyless = request
        keyless.idempotencyKey = ""
        #expect(throws: WireError.self) { try GatewayCounterRequest(decoding: keyless.encoded()) }
        WireExpectations.cap(GatewayLimits.operationIDByteCountMax) {
            GatewayCounterRequest(
                accessToken: "t",
                counter: "uploads",
                amount: 1,
                idempotencyKey: String(repeating: "k", count: $0)
            )
        }
    }

    @Test("Accounts: me, quota, checkFeature, consumeCounter, releaseCounter, link, resolveConflict, deleteAccount")
    func accounts() throws {
        try check(
            GatewayMethods.me,
            requests: authenticated,
            responses: Samples.users.map { MeResponse(user: $0, usage: Samples.usages[0]) }
                + Samples.usages.map { MeResponse(user: Samples.users[0], usage: $0) }
        )
        try check(GatewayMethods.quota, requests: authenticated, responses: Samples.usages)
        try check(
            GatewayMethods.checkFeature,
            requests: ["import", "", String(repeating: "f", count: 64)].map {
                GatewayFeatureRequest(accessToken: Samples.accessToken, feature: $0)
            },
            responses: [
                FeatureCheckResponse(plan: "guest", enabled: false),
                FeatureCheckResponse(plan: "member", enabled: true),
            ]
        )
        try check(GatewayMethods.consumeCounter, requests: Samples.counterRequests, responses: Samples.counterUsages)
        try check(GatewayMethods.releaseCounter, requests: Samples.counterRequests, responses: Samples.counterUsages)
        // Every credential once, and every conflict choice with every merge policy.
        let links =
            Samples.credentials.map { credential in
                LinkRequest(
                    accessToken: Samples.accessToken,
                    credential: credential,
                    onConflict: .merge,
                    mergePolicy: .keepNewest,
                    operationID: Samples.operationID
                )
            }
            + ConflictChoice.allCases.flatMap { choice in
                MergePolicy.allCases.map { policy in
                    LinkRequest(
                        accessToken: Samples.accessToken,
                        credential: Samples.credentials[0],
                        onConflict: choice,
                        mergePolicy: policy,
                        operationID: Samples.operationID
                    )
                }
            } + [
                LinkRequest(
                    accessToken: "",
                    credential: .password(email: "", password: ""),
                    onConflict: .fail,
                    mergePolicy: .keepAccount,
                    operationID: "o"
                ),
                LinkRequest(
                    accessToken: Samples.ascii(IdentityLimits.accessTokenByteCountMax),
                    credential: Samples.credentials.last!,
                    onConflict: .discard,
                    mergePolicy: .keepBoth,
                    operationID: Samples.ascii(GatewayLimits.operationIDByteCountMax)
                ),
            ]
        let results =
            Samples.sessions.flatMap { session in
                [LinkResult.linked(session), .discarded(session)] + Samples.mergeReports.map { .merged(session, $0) }
            } + Samples.conflicts.map(LinkResult.conflict)
        try check(GatewayMethods.link, requests: links, responses: results)
        let resolutions = [ConflictChoice.merge, .discard].flatMap { choice in
            MergePolicy.allCases.map { policy in
                ResolveConflictRequest(
                    accessToken: Samples.accessToken,
                    ticket: "dGlja2V0",
                    choice: choice,
                    mergePolicy: policy,
                    operationID: Samples.operationID
                )
            }
        }
        let edgeResolutions = [
            ResolveConflictRequest(
                accessToken: "",
                ticket: "",
                choice: .merge,
                mergePolicy: .keepAccount,
                operationID: "o"
            ),
            ResolveConflictRequest(
                accessToken: Samples.ascii(IdentityLimits.accessTokenByteCountMax),
                ticket: Samples.ascii(IdentityLimits.secretTokenByteCountMax),
                choice: .discard,
                mergePolicy: .keepBoth,
                operationID: Samples.ascii(GatewayLimits.operationIDByteCountMax)
            ),
        ]
        try check(GatewayMethods.resolveConflict, requests: resolutions + edgeResolutions, responses: results)
        try check(
            GatewayMethods.deleteAccount,
            requests: operations,
            responses: [0, 1, 127, 128, 1 << 32, .max].map { DeletionReport(documentsDeleted: $0) }
        )
    }

    @Test("Documents: putDocument, getDocument, listDocuments, deleteDocument, exportDocuments, importDocuments")
    func documents() throws {
        try check(
            GatewayMethods.putDocument,
            requests: [nil, 0, 1, .max].flatMap { version in
                [
                    GatewayPutRequest(
                        accessToken: Samples.accessToken,
                        collection: "notes",
                        key: "n1",
                        value: ByteBuffer(string: "note 1"),
                        expectedVersion: version,
                        idempotencyKey: Samples.operationID
                    ),
                    GatewayPutRequest(
                        accessToken: "",
                        collection: "",
                        key: "",
                        value: ByteBuffer(),
                        expectedVersion: version,
                        idempotencyKey: "k"
                    ),
                ]
            } + [
                GatewayPutRequest(
                    accessToken: Samples.ascii(IdentityLimits.accessTokenByteCountMax),
                    collection: Samples.ascii(UserDataLimits.collectionWireByteCountMax),
                    key: Samples.multibyte(UserDataLimits.keyWireByteCountMax),
                    value: Samples.bytes(UserDataLimits.valueWireByteCountMax),
                    expectedVersion: .max,
                    idempotencyKey: Samples.ascii(GatewayLimits.operationIDByteCountMax)
                )
            ],
            responses: [
                PutDocumentResponse(version: 1, updatedAtMicroseconds: 1_790_000_000_000_000),
                PutDocumentResponse(version: 0, updatedAtMicroseconds: 0),
                PutDocumentResponse(version: .max, updatedAtMicroseconds: .min),
                PutDocumentResponse(version: .max, updatedAtMicroseconds: .max),
            ]
        )
        let documentRequests = [
            GatewayDocumentRequest(accessToken: Samples.accessToken, collection: "notes", key: "n1"),
            GatewayDocumentRequest(accessToken: "", collection: "", key: ""),
            GatewayDocumentRequest(
                accessToken: Samples.ascii(IdentityLimits.accessTokenByteCountMax),
                collection: Samples.ascii(UserDataLimits.collectionWireByteCountMax),
                key: Samples.multibyte(UserDataLimits.keyWireByteCountMax)
            ),
        ]
        try check(
            GatewayMethods.getDocument,
            requests: documentRequests,
            responses: [GetDocumentResponse(document: nil)]
                + Samples.documents.map { GetDocumentResponse(document: $0) }
        )
        try check(
            GatewayMethods.deleteDocument,
            requests: documentRequests,
            responses: [DeleteDocumentResponse(deleted: true), DeleteDocumentResponse(deleted: false)]
        )
        let cursors = [
            nil, ByteBuffer(), ByteBuffer(bytes: [0, 1, 2]), Samples.bytes(UserDataLimits.cursorByteCountMax),
        ]
        let pageSizes = [1, 127, 128, UInt64(UserDataLimits.pageSizeLimit)]
        try check(
            GatewayMethods.listDocuments,
            requests: cursors.flatMap { cursor in
                pageSizes.map { size in
                    GatewayListRequest(
                        accessToken: Samples.accessToken,
                        collection: "notes",
                        cursor: cursor,
                        pageSize: size
                    )
                }
            } + [
                GatewayListRequest(accessToken: "", collection: "", pageSize: 1),
                GatewayListRequest(
                    accessToken: Samples.ascii(IdentityLimits.accessTokenByteCountMax),
                    collection: Samples.ascii(UserDataLimits.collectionWireByteCountMax),
                    cursor: Samples.bytes(UserDataLimits.cursorByteCountMax),
                    pageSize: UInt64(UserDataLimits.pageSizeLimit)
                ),
            ],
            responses: Samples.pages
        )
        try check(
            GatewayMethods.exportDocuments,
            requests: cursors.flatMap { cursor in
                pageSizes.map { GatewayExportRequest(accessToken: Samples.accessToken, cursor: cursor, pageSize: $0) }
            } + [GatewayExportRequest(accessToken: "", pageSize: 1)],
            responses: Samples.pages
        )
        try check(
            GatewayMethods.importDocuments,
            requests: [
                GatewayImportRequest(
                    accessToken: Samples.accessToken,
                    collection: "notes",
                    documents: [.init(key: "a", value: ByteBuffer(string: "1")), .init(key: "b", value: ByteBuffer())],
                    idempotencyKey: Samples.operationID
                ),
                GatewayImportRequest(accessToken: "", collection: "", documents: [], idempotencyKey: "k"),
                GatewayImportRequest(
                    accessToken: Samples.accessToken,
                    collection: "notes",
                    documents: Array(
                        repeating: .init(key: "", value: ByteBuffer()),
                        count: GatewayLimits.importCountMax
                    ),
                    idempotencyKey: Samples.ascii(GatewayLimits.operationIDByteCountMax)
                ),
            ],
            responses: [0, 1, UInt64(GatewayLimits.importCountMax), .max].map { ImportResponse(written: $0) }
        )
    }

    @Test("Sign-up checks: signUpChallenge, guestSignInWithCheck")
    func signUpChecks() throws {
        try check(GatewayMethods.signUpChallenge, requests: [Empty()], responses: Samples.signUpChallenges)
        try check(
            GatewayMethods.guestSignInWithCheck,
            requests: Samples.checkedGuestSignIns,
            responses: Samples.sessions
        )
    }

    @Test("A sign-up proof's kind is 1 or 2, its fields not empty; a challenge's difficulty is at most 64")
    func signUpProofLimits() {
        for bytes: [UInt8] in [[0], [3, 1, 0], [1, 0, 1, 7], [1, 1, 7, 0], [2, 0]] {
            #expect(throws: WireError.self) { try SignUpProof(decoding: ByteBuffer(bytes: bytes)) }
        }
        let steep = SignUpChallenge(challenge: [1], difficulty: 65, expiresAtMilliseconds: 0)
        #expect(throws: WireError.invalidValue("signUpChallenge.difficulty")) {
            try SignUpChallenge(decoding: steep.encoded())
        }
        // `CheckedGuestSignInRequest` starts with `GuestSignInRequest`'s bytes, then the optional proof.
        let request = CheckedGuestSignInRequest(idempotencyKey: Samples.operationID, proof: .siteverify(token: "t"))
        var expected = GuestSignInRequest(idempotencyKey: Samples.operationID).encoded()
        expected.writeBytes([1, 2, 1, UInt8(ascii: "t")])
        #expect(request.encoded() == expected)
    }

    @Test("Public information: jwks")
    func publicInformation() throws {
        try check(
            GatewayMethods.jwks,
            requests: [Empty()],
            responses: [
                JWKSResponse(json: Array(#"{"keys":[]}"#.utf8)), JWKSResponse(json: []),
                JWKSResponse(json: Array(repeating: 0x20, count: IdentityLimits.jwksByteCountMax)),
            ]
        )
    }

    @Test("A link's conflict and the error details the gateway passes through (QuotaExceededDetails)")
    func errorDetails() throws {
        for details in Samples.conflicts {
            try WireMessageChecks.roundTrip(details)
        }
        for details in [
            QuotaExceededDetails(usage: CounterUsage(counter: "documents", limit: 20, used: 20), requested: 1),
            QuotaExceededDetails(usage: CounterUsage(counter: "", limit: 0, used: 0), requested: 0),
            QuotaExceededDetails(
                usage: CounterUsage(counter: Samples.ascii(GuestQuotaLimits.nameByteCountMax), limit: .max, used: 0),
                requested: .max
            ),
        ] {
            try WireMessageChecks.roundTrip(details)
        }
    }
}
