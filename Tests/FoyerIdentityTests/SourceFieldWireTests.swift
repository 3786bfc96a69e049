import FoyerAPI
import FoyerWire
import NIOCore
import Testing

/// The `source` field that the requests which hash a password or send an email carry last.
@Suite("Identity contract: the client source of password and email-link requests")
struct SourceFieldWireTests {
    static let challenge = [UInt8](repeating: 7, count: 32)

    @Test("The source is the last field: a length-prefixed string after the fields before it")
    func layout() throws {
        var expected = ByteBuffer()
        expected.writeLengthPrefixedString("a@b.c")
        expected.writeLengthPrefixedString("pw")
        expected.writeLengthPrefixedString("2001:db8::1")
        let signIn = PasswordSignInRequest(email: "a@b.c", password: "pw", source: "2001:db8::1")
        #expect(signIn.encoded() == expected)
        #expect(try PasswordSignInRequest(decoding: expected) == signIn)

        var link = ByteBuffer()
        link.writeLengthPrefixedString("u")
        link.writeBuffer(&expected)
        let linkRequest = LinkPasswordRequest(uid: "u", email: "a@b.c", password: "pw", source: "2001:db8::1")
        #expect(try LinkPasswordRequest(decoding: link) == linkRequest)

        let start = StartEmailLinkRequest(
            purpose: .signIn,
            email: "a@b.c",
            verifierChallenge: Self.challenge,
            source: "192.0.2.1"
        )
        var body = start.encoded()
        let withoutSource = StartEmailLinkRequest(purpose: .signIn, email: "a@b.c", verifierChallenge: Self.challenge)
        #expect(body.readableBytes == withoutSource.encoded().readableBytes + 9)
        #expect(try StartEmailLinkRequest(decoding: body) == start)
        // Empty (an internal caller) is one byte, the length 0.
        #expect(withoutSource.source == "")
        body.moveWriterIndex(to: body.writerIndex - 10)
        body.writeInteger(UInt8(0))
        #expect(try StartEmailLinkRequest(decoding: body) == withoutSource)
    }

    @Test("A body without the source (as sent before it existed) is refused as truncated, not read as empty")
    func missingSourceIsTruncated() {
        var old = ByteBuffer()
        old.writeLengthPrefixedString("a@b.c")
        old.writeLengthPrefixedString("pw")
        #expect(throws: WireError.self) { try PasswordSignInRequest(decoding: old) }
    }

    @Test("A source over 64 bytes is refused by the decoder")
    func capped() {
        let long = String(repeating: "1", count: IdentityLimits.sourceByteCountMax + 1)
        let fits = String(repeating: "1", count: IdentityLimits.sourceByteCountMax)
        #expect(IdentityLimits.sourceByteCountMax == 64)
        #expect(throws: WireError.lengthOverLimit) {
            try PasswordSignInRequest(
                decoding: PasswordSignInRequest(email: "a@b.c", password: "p", source: long).encoded()
            )
        }
        #expect(throws: WireError.lengthOverLimit) {
            try LinkPasswordRequest(
                decoding: LinkPasswordRequest(uid: "u", email: "a@b.c", password: "p", source: long).encoded()
            )
        }
        #expect(throws: WireError.lengthOverLimit) {
            try StartEmailLinkRequest(
                decoding: StartEmailLinkRequest(
                    purpose: .signIn,
                    email: "a@b.c",
                    verifierChallenge: Self.challenge,
                    source: long
                ).encoded()
            )
        }
        #expect(
            (try? PasswordSignInRequest(
                decoding: PasswordSignInRequest(email: "a@b.c", password: "p", source: fits).encoded()
            ))?.source == fits
        )
    }
}
