import Foundation
import FoyerAPI
import FoyerTestSupport
import FoyerWire
import NIOCore
import Testing

@Suite("Device keys' messages: round trips, exact lengths, and the signed bytes")
struct DeviceKeyMessagesTests {
    typealias Samples = GatewaySamples

    @Test("Every device-key message round-trips, truncated at every byte and extended by one")
    func roundTrips() throws {
        for purpose in DeviceKeyPurpose.allCases {
            try WireMessageChecks.roundTrip(CreateDeviceKeyChallengeRequest(purpose: purpose))
        }
        for challenge in Samples.deviceKeyChallenges { try WireMessageChecks.roundTrip(challenge) }
        for request in Samples.deviceKeyRegisterRequests { try WireMessageChecks.roundTrip(request) }
        try WireMessageChecks.roundTrip(DeviceKeyRegistered(keyID: Samples.deviceKeyID))
        for key in Samples.devicePublicKeys {
            try WireMessageChecks.roundTrip(
                RegisterDeviceKeyRequest(
                    uid: Samples.ascii(IdentityLimits.uidByteCountMax),
                    publicKey: key,
                    challenge: Samples.deviceKeyChallenge,
                    signature: Samples.deviceKeySignature
                )
            )
        }
        try WireMessageChecks.roundTrip(
            DeviceKeySignInRequest(
                keyID: Samples.deviceKeyID,
                challenge: Samples.deviceKeyChallenge,
                signature: Samples.deviceKeySignature
            )
        )
    }

    @Test("Purposes the contract does not define are refused")
    func purposes() {
        WireExpectations.tag(of: CreateDeviceKeyChallengeRequest(purpose: .signIn), at: 0, valid: [1, 2])
    }

    @Test("Key ids, challenges and signatures of another length, and public keys of another length, are refused")
    func lengths() {
        let challenge = Samples.deviceKeyChallenge
        let signature = Samples.deviceKeySignature
        for count in [0, 31, 33] {
            let short = [UInt8](repeating: 1, count: count)
            let credential = Credential.deviceKey(keyID: short, challenge: challenge, signature: signature)
            #expect(throws: WireError.self) {
                try SignInRequest(decoding: SignInRequest(credential: credential).encoded())
            }
            let signIn = DeviceKeySignInRequest(keyID: Samples.deviceKeyID, challenge: short, signature: signature)
            #expect(throws: WireError.self) { try DeviceKeySignInRequest(decoding: signIn.encoded()) }
        }
        for count in [0, 63, 65] {
            let request = DeviceKeySignInRequest(
                keyID: Samples.deviceKeyID,
                challenge: challenge,
                signature: [UInt8](repeating: 1, count: count)
            )
            #expect(throws: WireError.self) { try DeviceKeySignInRequest(decoding: request.encoded()) }
        }
        for count in [0, 32, 34, 63, 66] {
            let request = DeviceKeyRegisterRequest(
                accessToken: Samples.accessToken,
                publicKey: [UInt8](repeating: 4, count: count),
                challenge: challenge,
                signature: signature
            )
            #expect(throws: WireError.self) { try DeviceKeyRegisterRequest(decoding: request.encoded()) }
        }
    }

    @Test("The signed message is the documented bytes (docs/PROTOCOL.md's test vector)")
    func signedMessage() {
        let message = DeviceKey.signedMessage(
            purpose: .signIn,
            issuer: "https://foyer.example",
            challenge: Array(0..<32)
        )
        let expected =
            "666f7965722d6465766963652d6b65792d7631007369676e2d696e0068747470733a2f2f666f7965722e6578616d706c65"
            + "00000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"
        #expect(message.map { String(format: "%02x", $0) }.joined() == expected)
        let register = DeviceKey.signedMessage(purpose: .register, issuer: "i", challenge: [7])
        #expect(register == Array("foyer-device-key-v1\0register\0i\0".utf8) + [7])
    }
}
