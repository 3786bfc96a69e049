import FoyerAPI
import FoyerTestSupport
import FoyerWire
import NIOCore
import Testing

@Suite("Gateway contract: Credential")
struct CredentialTests {
    typealias Samples = GatewaySamples
    typealias Expect = WireExpectations

    @Test("Every kind and provider, with and without a nonce, at empty and full lengths, round-trips")
    func roundTrips() throws {
        for credential in Samples.credentials { try WireMessageChecks.roundTrip(SignInRequest(credential: credential)) }
        #expect(Set(Samples.credentials.map(\.kind)) == [1, 2, 3, 4, 5, 6])
    }

    @Test("Kinds and providers the contract does not define are refused")
    func unknownTags() {
        for credential in [Samples.credentials[0], Samples.credentials[3], Samples.credentials[6]] {
            Expect.tag(
                of: SignInRequest(credential: credential),
                at: 0,
                valid: [1, 2, 3, 4, 5, 6],
                validKeepLayout: false
            )
        }
        Expect.tag(
            of: SignInRequest(credential: .idToken(provider: .apple, idToken: "t", rawNonce: "n")),
            at: 1,
            valid: [1, 2]
        )
    }

    @Test("A nonce's presence flag other than 0 or 1 is refused")
    func nonceFlag() {
        for nonce in [nil, "n"] {
            let credential = Credential.idToken(provider: .google, idToken: "t", rawNonce: nonce)
            // kind, provider, idToken (1-byte length and 1 byte), then the flag.
            Expect.tag(of: SignInRequest(credential: credential), at: 4, valid: [0, 1], validKeepLayout: false)
        }
    }

    @Test("An ID token without a code is kind 3 (as before kind 4); with one, kind 4; an empty code is refused")
    func authorizationCode() throws {
        let plain = Credential.idToken(provider: .apple, idToken: "t", rawNonce: "n")
        let coded = Credential.idToken(provider: .apple, idToken: "t", rawNonce: "n", authorizationCode: "code")
        #expect(plain.kind == 3)
        #expect(coded.kind == 4)
        // Kind 4 is kind 3's bytes followed by the code.
        var expected = SignInRequest(credential: plain).encoded()
        expected.setInteger(UInt8(4), at: 0)
        expected.writeLengthPrefixedString("code")
        #expect(SignInRequest(credential: coded).encoded() == expected)
        let empty = SignInRequest(
            credential: .idToken(provider: .apple, idToken: "t", rawNonce: nil, authorizationCode: "")
        )
        #expect(throws: WireError.invalidValue) { try SignInRequest(decoding: empty.encoded()) }
        Expect.cap(IdentityLimits.authorizationCodeByteCountMax) {
            SignInRequest(
                credential: .idToken(
                    provider: .apple,
                    idToken: "t",
                    rawNonce: nil,
                    authorizationCode: Samples.ascii($0)
                )
            )
        }
    }

    @Test("Each field over its cap is refused")
    func caps() {
        Expect.cap(IdentityLimits.emailByteCountMax) {
            SignInRequest(credential: .password(email: Samples.ascii($0), password: "p"))
        }
        Expect.cap(IdentityLimits.passwordByteCountMax) {
            SignInRequest(credential: .password(email: "a@b.c", password: Samples.multibyte($0)))
        }
        Expect.cap(IdentityLimits.secretTokenByteCountMax) {
            SignInRequest(credential: .emailLink(token: Samples.ascii($0), verifier: [1]))
        }
        Expect.cap(IdentityLimits.verifierByteCountMax) {
            SignInRequest(credential: .emailLink(token: "t", verifier: Array(repeating: 7, count: $0)))
        }
        Expect.cap(IdentityLimits.idTokenByteCountMax) {
            SignInRequest(credential: .idToken(provider: .apple, idToken: Samples.ascii($0), rawNonce: nil))
        }
        Expect.cap(IdentityLimits.rawNonceByteCountMax) {
            SignInRequest(credential: .idToken(provider: .google, idToken: "t", rawNonce: Samples.ascii($0)))
        }
    }

    @Test("An email code is exactly six ASCII digits: shorter, longer or other characters are refused")
    func emailCodeShape() throws {
        try WireMessageChecks.roundTrip(SignInRequest(credential: .emailCode(email: "a@b.c", code: "000000")))
        for code in ["", "12345", "1234567", "12345a", " 12345", "١٢٣٤٥٦", "12 456"] {
            let request = SignInRequest(credential: .emailCode(email: "a@b.c", code: code))
            #expect(throws: WireError.self) { try SignInRequest(decoding: request.encoded()) }
        }
        Expect.cap(IdentityLimits.emailByteCountMax) {
            SignInRequest(credential: .emailCode(email: Samples.ascii($0), code: "123456"))
        }
    }

    @Test("An email link without a verifier is refused, as its documented 1–128 bytes say")
    func emptyVerifier() {
        let request = SignInRequest(credential: .emailLink(token: "t", verifier: []))
        #expect(throws: WireError.invalidValue) { try SignInRequest(decoding: request.encoded()) }
    }

    @Test("A length no body could hold is refused from the varint, before anything is read or allocated")
    func hostileLengths() {
        for length in Expect.hostileVarints {
            let body = Expect.body {
                $0.writeInteger(UInt8(1))
                $0.writeLengthPrefixedString("a@b.c")
                $0.writeVarint(length)
            }
            #expect(throws: WireError.lengthOverLimit) { try SignInRequest(decoding: body) }
        }
        // Within the cap but longer than the body: truncated, not read past the end.
        let short = Expect.body {
            $0.writeInteger(UInt8(1))
            $0.writeVarint(UInt64(IdentityLimits.emailByteCountMax))
            $0.writeString("a@b.c")
        }
        #expect(throws: WireError.truncatedBody) { try SignInRequest(decoding: short) }
    }

    @Test("Text that is not UTF-8 is refused")
    func invalidUTF8() {
        let body = Expect.body {
            $0.writeInteger(UInt8(1))
            $0.writeLengthPrefixedBytes([0x61, 0xFF, 0x62])
            $0.writeLengthPrefixedString("p")
        }
        #expect(throws: WireError.invalidUTF8) { try SignInRequest(decoding: body) }
    }
}

extension Credential {
    /// The kind byte this credential encodes with.
    fileprivate var kind: UInt8 { encoded().getInteger(at: 0)! }

    fileprivate func encoded() -> ByteBuffer {
        var buffer = ByteBuffer()
        encode(into: &buffer)
        return buffer
    }
}
