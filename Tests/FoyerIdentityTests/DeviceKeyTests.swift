import Crypto
import Foundation
import FoyerAPI
import FoyerIdentity
import FoyerRPC
import FoyerStorage
import FoyerTestSupport
import FoyerWire
import SQLKit
import Testing

/// A device key as an app holds it, for the tests: it asks identity for challenges and signs them.
struct TestDeviceKey {
    let key = P256.Signing.PrivateKey()

    var publicKey: [UInt8] { Array(key.publicKey.x963Representation) }
    var keyID: [UInt8] { Array(SHA256.hash(data: key.publicKey.x963Representation)) }

    func sign(_ challenge: DeviceKeyChallenge, _ purpose: DeviceKeyPurpose, issuer: String? = nil) throws -> [UInt8] {
        let message = DeviceKey.signedMessage(
            purpose: purpose,
            issuer: issuer ?? challenge.issuer,
            challenge: challenge.challenge
        )
        return Array(try key.signature(for: message).rawRepresentation)
    }

    func registerRequest(
        _ identity: IdentityHarness,
        uid: String,
        publicKey: [UInt8]? = nil
    ) async throws
        -> RegisterDeviceKeyRequest
    {
        let challenge = try await identity.challenge(.register)
        return RegisterDeviceKeyRequest(
            uid: uid,
            publicKey: publicKey ?? self.publicKey,
            challenge: challenge.challenge,
            signature: try sign(challenge, .register)
        )
    }

    @discardableResult
    func register(_ identity: IdentityHarness, uid: String) async throws -> DeviceKeyRegistered {
        try await identity.call(IdentityMethods.registerDeviceKey, try await registerRequest(identity, uid: uid))
    }

    func signInRequest(_ identity: IdentityHarness) async throws -> DeviceKeySignInRequest {
        let challenge = try await identity.challenge(.signIn)
        return DeviceKeySignInRequest(
            keyID: keyID,
            challenge: challenge.challenge,
            signature: try sign(challenge, .signIn)
        )
    }

    func signIn(_ identity: IdentityHarness) async throws -> SessionTokens {
        try await identity.call(IdentityMethods.signInWithDeviceKey, try await signInRequest(identity))
    }

    /// The status a sign-in with this key is refused with, or nil.
    func signInStatus(_ identity: IdentityHarness) async throws -> RPCStatus? {
        await identity.status(IdentityMethods.signInWithDeviceKey, try await signInRequest(identity))
    }
}

extension IdentityHarness {
    func challenge(_ purpose: DeviceKeyPurpose) async throws -> DeviceKeyChallenge {
        try await call(IdentityMethods.createDeviceKeyChallenge, CreateDeviceKeyChallengeRequest(purpose: purpose))
    }
}

@Suite("Device keys")
struct DeviceKeyTests {
    @Test(
        "A guest registers a key and signs in with it to the same uid; only hashes of challenges are kept",
        arguments: TestEngine.allCases
    )
    func registerAndSignIn(engine: TestEngine) async throws {
        try await withIdentity(engine) { identity in
            let guest = try await identity.newGuest()
            let device = TestDeviceKey()
            let challenge = try await identity.challenge(.register)
            #expect(challenge.challenge.count == 32 && challenge.issuer == identity.configuration.issuer)
            let stored = try await identity.database.withConnection { sql in
                try await sql.raw("SELECT challenge_hash FROM identity_device_key_challenges").all()
                    .map { try $0.decodeBytes(column: "challenge_hash") }
            }
            #expect(stored.count == 1 && stored[0] != challenge.challenge)
            let registered = try await identity.call(
                IdentityMethods.registerDeviceKey,
                RegisterDeviceKeyRequest(
                    uid: guest.uid,
                    publicKey: device.publicKey,
                    challenge: challenge.challenge,
                    signature: try device.sign(challenge, .register)
                )
            )
            #expect(registered.keyID == device.keyID)
            #expect(try await identity.count("identity_device_key_challenges") == 0)

            let session = try await device.signIn(identity)
            #expect(session.uid == guest.uid && session.isAnonymous && session.sessionID != guest.sessionID)
            _ = try await identity.call(
                IdentityMethods.verifyAccessToken,
                VerifyAccessTokenRequest(accessToken: session.accessToken)
            )
            // Registering the same key again for the same guest answers its id.
            #expect(try await device.register(identity, uid: guest.uid) == registered)
            #expect(try await identity.count("identity_device_keys", where: "uid", is: guest.uid) == 1)
        }
    }

    @Test("The compressed, raw and uncompressed encodings of a key are one key", arguments: TestEngine.allCases)
    func encodings(engine: TestEngine) async throws {
        try await withIdentity(engine) { identity in
            let guest = try await identity.newGuest()
            let device = TestDeviceKey()
            let point = device.key.publicKey
            for encoding in [
                Array(point.compressedRepresentation), Array(point.rawRepresentation),
                Array(point.x963Representation),
            ] {
                let request = try await device.registerRequest(identity, uid: guest.uid, publicKey: encoding)
                #expect(try await identity.call(IdentityMethods.registerDeviceKey, request).keyID == device.keyID)
            }
            #expect(try await device.signIn(identity).uid == guest.uid)
        }
    }

    @Test("A key that is not a P-256 point is invalid-argument", arguments: [TestEngine.sqlite])
    func invalidKeys(engine: TestEngine) async throws {
        try await withIdentity(engine) { identity in
            let guest = try await identity.newGuest()
            let device = TestDeviceKey()
            var offCurve = device.publicKey
            offCurve[64] ^= 1
            var wrongPrefix = device.publicKey
            wrongPrefix[0] = 0x05
            for bad in [offCurve, wrongPrefix, [UInt8](repeating: 0, count: 33), [UInt8](repeating: 0xFF, count: 64)] {
                let request = try await device.registerRequest(identity, uid: guest.uid, publicKey: bad)
                #expect(
                    await identity.status(IdentityMethods.registerDeviceKey, request) == RPCStatus.invalidArgument
                )
            }
            #expect(try await identity.count("identity_device_keys") == 0)
        }
    }

    @Test(
        "A challenge is single-use, bound to its purpose and deployment, and dies after 5 minutes",
        arguments: TestEngine.allCases
    )
    func challenges(engine: TestEngine) async throws {
        try await withIdentity(engine) { identity in
            let guest = try await identity.newGuest()
            let device = TestDeviceKey()
            try await device.register(identity, uid: guest.uid)

            // Replayed: the same signed request twice.
            let request = try await device.signInRequest(identity)
            _ = try await identity.call(IdentityMethods.signInWithDeviceKey, request)
            #expect(await identity.status(IdentityMethods.signInWithDeviceKey, request) == IdentityStatus.invalidToken)

            // A register challenge, even signed as a sign-in, does not sign in.
            let other = try await identity.challenge(.register)
            let misused = DeviceKeySignInRequest(
                keyID: device.keyID,
                challenge: other.challenge,
                signature: try device.sign(other, .signIn)
            )
            #expect(await identity.status(IdentityMethods.signInWithDeviceKey, misused) == IdentityStatus.invalidToken)

            // A signature of the register purpose, or for another deployment, does not verify; the challenge is
            // spent by the failed try.
            let wrongSignatures: [(DeviceKeyPurpose, String?)] = [
                (.register, nil), (.signIn, "https://elsewhere.example"),
            ]
            for (purpose, issuer) in wrongSignatures {
                let challenge = try await identity.challenge(.signIn)
                let wrong = DeviceKeySignInRequest(
                    keyID: device.keyID,
                    challenge: challenge.challenge,
                    signature: try device.sign(challenge, purpose, issuer: issuer)
                )
                #expect(
                    await identity.status(IdentityMethods.signInWithDeviceKey, wrong)
                        == IdentityStatus.invalidCredentials
                )
                let right = DeviceKeySignInRequest(
                    keyID: device.keyID,
                    challenge: challenge.challenge,
                    signature: try device.sign(challenge, .signIn)
                )
                #expect(
                    await identity.status(IdentityMethods.signInWithDeviceKey, right) == IdentityStatus.invalidToken
                )
            }

            // Expired.
            let late = try await device.signInRequest(identity)
            identity.clock.advance(by: .seconds(301))
            #expect(await identity.status(IdentityMethods.signInWithDeviceKey, late) == IdentityStatus.tokenExpired)
            // The janitor prunes expired challenges.
            _ = try await identity.challenge(.signIn)
            identity.clock.advance(by: .seconds(301))
            try await identity.service.runMaintenance()
            #expect(try await identity.count("identity_device_key_challenges") == 0)
        }
    }

    @Test(
        "A key registered to one guest never yields another: registering it again elsewhere is refused",
        arguments: TestEngine.allCases
    )
    func otherUsers(engine: TestEngine) async throws {
        try await withIdentity(engine) { identity in
            let first = try await identity.newGuest()
            let second = try await identity.newGuest()
            let device = TestDeviceKey()
            try await device.register(identity, uid: first.uid)
            let request = try await device.registerRequest(identity, uid: second.uid)
            #expect(
                await identity.status(IdentityMethods.registerDeviceKey, request)
                    == IdentityStatus.credentialAlreadyInUse
            )
            #expect(try await device.signIn(identity).uid == first.uid)
            // A key nobody registered, and someone else's signature for a registered key id.
            #expect(try await TestDeviceKey().signInStatus(identity) == IdentityStatus.invalidCredentials)
            let thief = TestDeviceKey()
            let challenge = try await identity.challenge(.signIn)
            let forged = DeviceKeySignInRequest(
                keyID: device.keyID,
                challenge: challenge.challenge,
                signature: try thief.sign(challenge, .signIn)
            )
            #expect(
                await identity.status(IdentityMethods.signInWithDeviceKey, forged) == IdentityStatus.invalidCredentials
            )
        }
    }

    @Test(
        "A guest keeps at most 5 keys: a sixth replaces the least recently used",
        arguments: [TestEngine.sqlite]
    )
    func cap(engine: TestEngine) async throws {
        try await withIdentity(engine) { identity in
            let guest = try await identity.newGuest()
            var devices: [TestDeviceKey] = []
            for _ in 0..<DeviceKey.keysPerUserMax {
                let device = TestDeviceKey()
                try await device.register(identity, uid: guest.uid)
                devices.append(device)
                identity.clock.advance(by: .seconds(1))
            }
            // The first is used now, so the second is the least recently used.
            _ = try await devices[0].signIn(identity)
            identity.clock.advance(by: .seconds(1))
            let sixth = TestDeviceKey()
            try await sixth.register(identity, uid: guest.uid)
            #expect(try await identity.count("identity_device_keys", where: "uid", is: guest.uid) == 5)
            #expect(try await devices[1].signInStatus(identity) == IdentityStatus.invalidCredentials)
            #expect(try await devices[0].signIn(identity).uid == guest.uid)
            #expect(try await sixth.signIn(identity).uid == guest.uid)
        }
    }

    @Test(
        "Members are refused: a member cannot register, and a guest that becomes one loses its keys",
        arguments: TestEngine.allCases
    )
    func members(engine: TestEngine) async throws {
        try await withIdentity(engine) { identity in
            let guest = try await identity.newGuest()
            let device = TestDeviceKey()
            try await device.register(identity, uid: guest.uid)
            _ = try await identity.call(
                IdentityMethods.linkPassword,
                LinkPasswordRequest(uid: guest.uid, email: "kept@example.com", password: "a member's password")
            ).linked()
            #expect(try await identity.count("identity_device_keys") == 0)
            #expect(try await device.signInStatus(identity) == IdentityStatus.invalidCredentials)
            let request = try await TestDeviceKey().registerRequest(identity, uid: guest.uid)
            #expect(await identity.status(IdentityMethods.registerDeviceKey, request) == IdentityStatus.guestRequired)
        }
    }

    @Test(
        "Signing out everywhere and deleting the guest remove its keys",
        arguments: TestEngine.allCases
    )
    func removal(engine: TestEngine) async throws {
        try await withIdentity(engine) { identity in
            let guest = try await identity.newGuest()
            let device = TestDeviceKey()
            try await device.register(identity, uid: guest.uid)
            try await identity.call(IdentityMethods.revokeAllSessions, IdentityUserRequest(uid: guest.uid))
            #expect(try await identity.count("identity_device_keys") == 0)
            #expect(try await device.signInStatus(identity) == IdentityStatus.invalidCredentials)

            let other = try await identity.newGuest()
            try await device.register(identity, uid: other.uid)
            _ = try await identity.call(
                IdentityMethods.beginDelete,
                BeginDeleteRequest(uid: other.uid, operationID: "gone")
            )
            #expect(try await identity.count("identity_device_keys") == 0)
            try await identity.call(
                IdentityMethods.finishDelete,
                FinishDeleteRequest(uid: other.uid, operationID: "gone")
            )
            #expect(try await device.signInStatus(identity) == IdentityStatus.invalidCredentials)
        }
    }
}

@Suite("Device keys' documented test vector")
struct DeviceKeyVectorTests {
    static func bytes(_ hex: String) -> [UInt8] {
        var bytes: [UInt8] = []
        var index = hex.startIndex
        while index < hex.endIndex {
            let next = hex.index(index, offsetBy: 2)
            bytes.append(UInt8(hex[index..<next], radix: 16)!)
            index = next
        }
        return bytes
    }

    @Test("docs/PROTOCOL.md's vector: the key id, and a signature of the signed message that verifies")
    func vector() throws {
        let privateKey = try P256.Signing.PrivateKey(
            rawRepresentation: Self.bytes("e6e665299a849fda041c0d2109d01c4e55daa479a71cb59e9335759a9246e1d4")
        )
        let uncompressed = Array(privateKey.publicKey.x963Representation)
        #expect(
            uncompressed
                == Self.bytes(
                    "0466d88819cd6a9c020d798d76143fb44a5fa486982e4e0e63747e47a47630376f"
                        + "f4aadfdaefc53272bf63da27f0bb6d6bc5630cd16c9543e0e8a84567a78264df"
                )
        )
        #expect(
            Array(SHA256.hash(data: uncompressed))
                == Self.bytes("ceec758cb309aed963754f828de32cc4a6641bc1d67903e0b3fffb9524c709d3")
        )
        let message = DeviceKey.signedMessage(
            purpose: .signIn,
            issuer: "https://foyer.example",
            challenge: Array(0..<32)
        )
        let signature = try P256.Signing.ECDSASignature(
            rawRepresentation: Self.bytes(
                "2862a5690d1f8d36066b838f82f93675bd45c3599eea2674f14a82a355c9226c"
                    + "2c1089f959981082d5e070bdda2c60a85ecfa0df8f89937adbc76c8b736ec3cb"
            )
        )
        #expect(privateKey.publicKey.isValidSignature(signature, for: message))
    }
}
