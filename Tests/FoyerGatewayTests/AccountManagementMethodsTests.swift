import FoyerAPI
import FoyerTestSupport
import FoyerWire
import NIOCore
import Testing

@Suite("Account management's messages: round trips at their caps, and what is refused")
struct AccountManagementMethodsTests {
    typealias Samples = GatewaySamples

    private let challenge = Array(repeating: UInt8(7), count: IdentityLimits.verifierChallengeByteCount)
    private let longPassword = Samples.multibyte(IdentityLimits.passwordByteCountMax)

    @Test("The gateway's requests round-trip, truncated at every byte and extended by one")
    func gatewayRequests() throws {
        for request in [
            PasswordResetStartRequest(email: "a@b.c", verifierChallenge: nil),
            PasswordResetStartRequest(
                email: Samples.ascii(IdentityLimits.emailByteCountMax),
                verifierChallenge: challenge
            ),
        ] {
            try WireMessageChecks.roundTrip(request)
        }
        for request in [
            PasswordResetCompleteRequest(token: "dG9rZW4", verifier: nil, newPassword: ""),
            PasswordResetCompleteRequest(
                token: Samples.ascii(IdentityLimits.secretTokenByteCountMax),
                verifier: Array(repeating: 1, count: IdentityLimits.verifierByteCountMax),
                newPassword: longPassword
            ),
        ] {
            try WireMessageChecks.roundTrip(request)
        }
        for request in [
            PasswordChangeRequest(accessToken: Samples.accessToken, currentPassword: nil, newPassword: "n"),
            PasswordChangeRequest(
                accessToken: Samples.ascii(IdentityLimits.accessTokenByteCountMax),
                currentPassword: longPassword,
                newPassword: longPassword
            ),
        ] {
            try WireMessageChecks.roundTrip(request)
        }
        for credential in CredentialKind.allCases {
            try WireMessageChecks.roundTrip(UnlinkRequest(accessToken: Samples.accessToken, credential: credential))
        }
        for request in [
            EmailChangeStartRequest(
                accessToken: Samples.accessToken,
                currentPassword: nil,
                newEmail: "a@b.c",
                verifierChallenge: nil
            ),
            EmailChangeStartRequest(
                accessToken: Samples.ascii(IdentityLimits.accessTokenByteCountMax),
                currentPassword: longPassword,
                newEmail: Samples.ascii(IdentityLimits.emailByteCountMax),
                verifierChallenge: challenge
            ),
        ] {
            try WireMessageChecks.roundTrip(request)
        }
        try WireMessageChecks.roundTrip(CompleteEmailChangeRequest(token: "dG9rZW4", verifier: nil))
        try WireMessageChecks.roundTrip(
            CompleteEmailChangeRequest(
                token: Samples.ascii(IdentityLimits.secretTokenByteCountMax),
                verifier: Array(repeating: 1, count: IdentityLimits.verifierByteCountMax)
            )
        )
        for session in Samples.sessions { try WireMessageChecks.roundTrip(session) }
    }

    @Test("Identity's requests round-trip at their caps")
    func identityRequests() throws {
        try WireMessageChecks.roundTrip(
            StartPasswordResetRequest(email: "a@b.c", verifierChallenge: challenge, source: "2001:db8::1")
        )
        try WireMessageChecks.roundTrip(
            CompletePasswordResetRequest(token: "dG9rZW4", verifier: [1], newPassword: longPassword, source: "")
        )
        try WireMessageChecks.roundTrip(
            ChangePasswordRequest(
                uid: Samples.ascii(IdentityLimits.uidByteCountMax),
                sessionID: Samples.ascii(IdentityLimits.sessionIDByteCountMax),
                currentPassword: nil,
                newPassword: longPassword,
                source: Samples.ascii(IdentityLimits.sourceByteCountMax)
            )
        )
        try WireMessageChecks.roundTrip(UnlinkCredentialRequest(uid: "u", sessionID: "s", credential: .apple))
        try WireMessageChecks.roundTrip(
            StartEmailChangeRequest(
                uid: "u",
                sessionID: "s",
                currentPassword: longPassword,
                newEmail: "new@b.c",
                verifierChallenge: challenge,
                source: "192.0.2.1"
            )
        )
    }

    @Test(
        "A challenge of another size, an empty verifier, an unknown credential kind, an oversized password are refused"
    )
    func refused() {
        var shortChallenge = ByteBuffer()
        shortChallenge.writeLengthPrefixedString("a@b.c")
        shortChallenge.writeOptional([UInt8](repeating: 7, count: 31)) { $0.writeLengthPrefixedBytes($1) }
        #expect(throws: WireError.self) { try PasswordResetStartRequest(decoding: shortChallenge) }

        var emptyVerifier = ByteBuffer()
        emptyVerifier.writeLengthPrefixedString("dG9rZW4")
        emptyVerifier.writeOptional([UInt8]()) { $0.writeLengthPrefixedBytes($1) }
        emptyVerifier.writeLengthPrefixedString("a new password")
        #expect(throws: WireError.self) { try PasswordResetCompleteRequest(decoding: emptyVerifier) }

        var unknownKind = ByteBuffer()
        unknownKind.writeLengthPrefixedString(Samples.accessToken)
        unknownKind.writeInteger(UInt8(3))
        #expect(throws: WireError.self) { try UnlinkRequest(decoding: unknownKind) }

        var oversized = ByteBuffer()
        oversized.writeLengthPrefixedString(Samples.accessToken)
        oversized.writeOptional(String?.none) { $0.writeLengthPrefixedString($1) }
        oversized.writeLengthPrefixedString(Samples.ascii(IdentityLimits.passwordByteCountMax + 1))
        #expect(throws: WireError.self) { try PasswordChangeRequest(decoding: oversized) }
    }
}
