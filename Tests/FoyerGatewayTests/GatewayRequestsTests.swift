import FoyerAPI
import FoyerTestSupport
import FoyerWire
import NIOCore
import Testing

@Suite("Gateway contract: session and account requests refuse what the contract does not allow")
struct GatewayRequestsTests {
    typealias Samples = GatewaySamples
    typealias Expect = WireExpectations

    private func link(
        token: String = Samples.accessToken,
        credential: Credential = .password(email: "a@b.c", password: "p"),
        operationID: String = Samples.operationID
    ) -> LinkRequest {
        LinkRequest(
            accessToken: token,
            credential: credential,
            onConflict: .merge,
            mergePolicy: .keepNewest,
            operationID: operationID
        )
    }

    private func resolve(
        token: String = Samples.accessToken,
        ticket: String = "dGlja2V0",
        operationID: String = Samples.operationID
    ) -> ResolveConflictRequest {
        ResolveConflictRequest(
            accessToken: token,
            ticket: ticket,
            choice: .merge,
            mergePolicy: .keepNewest,
            operationID: operationID
        )
    }

    private func startEmailLink(
        email: String = "a@b.c",
        token: String? = nil,
        challenge: [UInt8] = Samples.challenge
    )
        -> EmailLinkStartRequest
    {
        EmailLinkStartRequest(purpose: .link, email: email, accessToken: token, verifierChallenge: challenge)
    }

    @Test("An access token over 4096 bytes is refused by every request that carries one")
    func accessTokenCap() {
        let cap = IdentityLimits.accessTokenByteCountMax
        Expect.cap(cap) { AuthenticatedRequest(accessToken: Samples.ascii($0)) }
        Expect.cap(cap) { OperationRequest(accessToken: Samples.ascii($0), operationID: "o") }
        Expect.cap(cap) { link(token: Samples.ascii($0)) }
        Expect.cap(cap) { resolve(token: Samples.ascii($0)) }
        Expect.cap(cap) { startEmailLink(token: Samples.ascii($0)) }
    }

    @Test("Operation ids and idempotency keys are 1–128 bytes")
    func operationIDs() {
        let cap = GatewayLimits.operationIDByteCountMax
        Expect.cap(cap) { OperationRequest(accessToken: "t", operationID: Samples.ascii($0)) }
        Expect.cap(cap) { link(operationID: Samples.multibyte($0)) }
        Expect.cap(cap) { resolve(operationID: Samples.ascii($0)) }
        Expect.cap(cap) { GuestSignInRequest(idempotencyKey: Samples.ascii($0)) }
        #expect(throws: WireError.invalidValue) {
            try OperationRequest(decoding: OperationRequest(accessToken: "t", operationID: "").encoded())
        }
        #expect(throws: WireError.invalidValue) { try LinkRequest(decoding: link(operationID: "").encoded()) }
        #expect(throws: WireError.invalidValue) {
            try ResolveConflictRequest(decoding: resolve(operationID: "").encoded())
        }
        #expect(throws: WireError.invalidValue) {
            try GuestSignInRequest(decoding: GuestSignInRequest(idempotencyKey: "").encoded())
        }
    }

    @Test("Other fields over their caps are refused")
    func otherCaps() {
        Expect.cap(64) { GuestSignInRequest(idempotencyKey: Samples.ascii(16), loadTestSource: Samples.ascii($0)) }
        Expect.cap(IdentityLimits.emailByteCountMax) { startEmailLink(email: Samples.multibyte($0)) }
        Expect.cap(IdentityLimits.secretTokenByteCountMax) { resolve(ticket: Samples.ascii($0)) }
        Expect.cap(IdentityLimits.secretTokenByteCountMax) {
            RefreshSessionRequest(refreshToken: Samples.ascii($0))
        }
    }

    @Test("A verifier challenge is exactly 32 bytes")
    func challengeSize() {
        for size in [0, 1, IdentityLimits.verifierChallengeByteCount - 1] {
            let request = startEmailLink(challenge: Array(repeating: 1, count: size))
            #expect(throws: WireError.invalidValue) { try EmailLinkStartRequest(decoding: request.encoded()) }
        }
        let over = startEmailLink(challenge: Array(repeating: 1, count: IdentityLimits.verifierChallengeByteCount + 1))
        #expect(throws: WireError.lengthOverLimit) { try EmailLinkStartRequest(decoding: over.encoded()) }
    }

    @Test("Purposes, conflict choices and merge policies the contract does not define are refused")
    func unknownTags() {
        Expect.tag(of: startEmailLink(), at: 0, valid: [1, 2])
        // purpose, email (1 + 5 bytes), then the access token's presence flag.
        Expect.tag(of: startEmailLink(token: "t"), at: 7, valid: [0, 1], validKeepLayout: false)

        let request = link()
        let onConflict = Expect.body {
            $0.writeLengthPrefixedString(request.accessToken)
            request.credential.encode(into: &$0)
        }.readableBytes
        Expect.tag(of: request, at: onConflict, valid: Set(ConflictChoice.allCases.map(\.rawValue)))
        Expect.tag(of: request, at: onConflict + 1, valid: Set(MergePolicy.allCases.map(\.rawValue)))

        let resolution = resolve()
        let choice = Expect.body {
            $0.writeLengthPrefixedString(resolution.accessToken)
            $0.writeLengthPrefixedString(resolution.ticket)
        }.readableBytes
        // `fail` is a choice `link` takes, not an answer to a conflict already returned.
        Expect.tag(of: resolution, at: choice, valid: [ConflictChoice.merge.rawValue, ConflictChoice.discard.rawValue])
        Expect.tag(of: resolution, at: choice + 1, valid: Set(MergePolicy.allCases.map(\.rawValue)))

        // idempotency key (1 + 16 bytes), then the load-test source's presence flag.
        Expect.tag(
            of: GuestSignInRequest(idempotencyKey: Samples.ascii(16), loadTestSource: "s"),
            at: 17,
            valid: [0, 1],
            validKeepLayout: false
        )
    }

    @Test("A length no body could hold is refused from the varint, in every request that starts with a token")
    func hostileLengths() {
        for length in Expect.hostileVarints {
            let body = Expect.body { $0.writeVarint(length) }
            #expect(throws: WireError.lengthOverLimit) { try AuthenticatedRequest(decoding: body) }
            #expect(throws: WireError.lengthOverLimit) { try OperationRequest(decoding: body) }
            #expect(throws: WireError.lengthOverLimit) { try LinkRequest(decoding: body) }
            #expect(throws: WireError.lengthOverLimit) { try ResolveConflictRequest(decoding: body) }
            #expect(throws: WireError.lengthOverLimit) { try GuestSignInRequest(decoding: body) }
            #expect(throws: WireError.lengthOverLimit) { try RefreshSessionRequest(decoding: body) }
        }
    }

    @Test("A varint that is overlong or overflows 64 bits is refused")
    func badVarints() {
        let overlong = ByteBuffer(bytes: [0x81, 0x00, 0x61])
        #expect(throws: WireError.invalidVarint) { try AuthenticatedRequest(decoding: overlong) }
        let overflow = ByteBuffer(bytes: Array(repeating: 0xFF, count: 9) + [0x02])
        #expect(throws: WireError.invalidVarint) { try AuthenticatedRequest(decoding: overflow) }
        let endless = ByteBuffer(bytes: Array(repeating: 0x80, count: 64))
        #expect(throws: WireError.invalidVarint) { try AuthenticatedRequest(decoding: endless) }
    }
}
