import Foundation
import FoyerAPI
import FoyerCrypto
import FoyerStorage
import SQLKit

extension IdentityCore {
    /// How long a device-key challenge may be answered.
    static let deviceKeyChallengeLifetime = Duration.seconds(300)

    /// `createDeviceKeyChallenge`: 32 bytes from the CSPRNG for a device key to sign, for one purpose, once, within
    /// five minutes. Identity keeps SHA-256 of a label and the challenge, never the challenge; the janitor prunes
    /// rows past their expiry. The gateway limits the calls per source.
    func createDeviceKeyChallenge(_ request: CreateDeviceKeyChallengeRequest) async throws -> DeviceKeyChallenge {
        let now = self.now
        let challenge = SecureRandom.bytes(count: DeviceKey.challengeByteCount)
        let expiry = now.adding(Self.deviceKeyChallengeLifetime)
        try await database.transaction { sql in
            try await DeviceKeyRecords.insertChallenge(
                sql,
                hash: Self.challengeHash(challenge),
                purpose: request.purpose,
                now: now,
                expiry: expiry
            )
        }
        return DeviceKeyChallenge(
            challenge: challenge,
            issuer: configuration.issuer,
            expiresAtMilliseconds: expiry.wireMilliseconds
        )
    }

    /// `registerDeviceKey`: the guest `uid` registers a P-256 key, proven by its signature of a `register`
    /// challenge. Registering the same key again for the same guest answers its id; a key registered to another
    /// user is `credential-already-in-use`. A guest holds at most `DeviceKey.keysPerUserMax` keys: one more
    /// replaces the least recently used. Members are refused (`guest-required`; docs/DECISIONS.md).
    func registerDeviceKey(_ request: RegisterDeviceKeyRequest) async throws -> DeviceKeyRegistered {
        guard let key = DevicePublicKey(request.publicKey) else {
            throw IdentityError.invalidArgument(
                "the public key must be a P-256 point: compressed SEC1 (33 bytes), raw x || y (64) or uncompressed "
                    + "SEC1 (65), on the curve"
            )
        }
        let message = DeviceKey.signedMessage(
            purpose: .register,
            issuer: configuration.issuer,
            challenge: request.challenge
        )
        let signed = key.verifies(request.signature, of: message)
        let keyID = key.keyID
        let now = self.now
        let outcome: Result<Void, IdentityError> = try await database.transaction { sql in
            if let refusal = try await self.spendChallenge(sql, request.challenge, purpose: .register, now: now) {
                return .failure(refusal)
            }
            guard signed else { return .failure(IdentityError.wrongDeviceKeySignature()) }
            let user: UserRecord
            do {
                user = try await UserRecords.requireActive(sql, uid: request.uid, lock: true)
            } catch let error as IdentityError {
                return .failure(error)  // answered after the commit, so the challenge stays spent
            }
            guard user.isAnonymous else {
                return .failure(
                    IdentityError.guestRequired("device keys are for guests; a member signs in with its credentials")
                )
            }
            if let existing = try await DeviceKeyRecords.load(sql, keyID: keyID, lock: true) {
                guard existing.uid == request.uid else { return .failure(IdentityError.deviceKeyOfAnotherUser()) }
                return .success(())
            }
            let held = try await DeviceKeyRecords.keyIDs(sql, uid: request.uid)
            for old in held.prefix(max(0, held.count - DeviceKey.keysPerUserMax + 1)) {
                try await DeviceKeyRecords.delete(sql, keyID: old)
            }
            try await DeviceKeyRecords.insert(
                sql,
                keyID: keyID,
                uid: request.uid,
                publicKey: key.uncompressed,
                now: now
            )
            return .success(())
        }
        try outcome.get()
        logger.info("device key registered", metadata: ["user.uid": "\(request.uid)"])
        return DeviceKeyRegistered(keyID: keyID)
    }

    /// `signInWithDeviceKey`: a session for the guest that registered the key, given the key's signature of a
    /// `signIn` challenge. An unknown key and a wrong signature are both `invalid-credentials`; the challenge is
    /// spent either way. The key's user must still be a guest (`guest-required`) and active.
    func signInWithDeviceKey(_ request: DeviceKeySignInRequest) async throws -> SessionTokens {
        let message = DeviceKey.signedMessage(
            purpose: .signIn,
            issuer: configuration.issuer,
            challenge: request.challenge
        )
        // The signature is checked before the transaction (CPU work stays out of it) against the stored key, which
        // the transaction then finds unchanged under a lock.
        let stored = try await database.transaction { sql in
            try await DeviceKeyRecords.load(sql, keyID: request.keyID)
        }
        let signed = stored.flatMap { DevicePublicKey($0.publicKey) }?.verifies(request.signature, of: message) ?? false
        let now = self.now
        let outcome: Result<SessionTokens, IdentityError> = try await database.transaction { sql in
            if let refusal = try await self.spendChallenge(sql, request.challenge, purpose: .signIn, now: now) {
                return .failure(refusal)
            }
            guard signed, let stored,
                let record = try await DeviceKeyRecords.load(sql, keyID: request.keyID, lock: true),
                record.uid == stored.uid, ConstantTime.equals(record.publicKey, stored.publicKey)
            else { return .failure(IdentityError.wrongDeviceKeySignature()) }
            let user: UserRecord
            do {
                user = try await UserRecords.requireActive(sql, uid: record.uid, lock: true)
            } catch let error as IdentityError {
                return .failure(error)  // answered after the commit, so the challenge stays spent
            }
            guard user.isAnonymous else {
                return .failure(IdentityError.guestRequired("device keys sign in to guests only"))
            }
            try await DeviceKeyRecords.touch(sql, keyID: record.keyID, now: now)
            return .success(try await self.startSession(sql, user: user, now: now))
        }
        let tokens = try outcome.get()
        logger.info("signed in with a device key", metadata: ["user.uid": "\(tokens.uid)"])
        return tokens
    }

    /// Spends the challenge (its row is gone afterwards, whatever the answer) and says why it does not serve
    /// `purpose` now, or nil when it does.
    private func spendChallenge(
        _ sql: any SQLDatabase,
        _ challenge: [UInt8],
        purpose: DeviceKeyPurpose,
        now: Date
    ) async throws -> IdentityError? {
        guard let row = try await DeviceKeyRecords.takeChallenge(sql, hash: Self.challengeHash(challenge)) else {
            return IdentityError.invalidToken("the challenge is unknown or was already used")
        }
        guard row.purpose == purpose.label else {
            return IdentityError.invalidToken("the challenge was made for another purpose")
        }
        guard now < row.expiresAt else { return IdentityError.tokenExpired("the challenge has expired") }
        return nil
    }

    /// What identity keeps of a challenge: SHA-256 of a label and the challenge. The row is found by this hash (an
    /// index lookup, not a comparison of secrets: a 256-bit random value's hash tells nothing of another's).
    static func challengeHash(_ challenge: [UInt8]) -> [UInt8] {
        SHA256.hash(Array("device-key-challenge:".utf8) + challenge)
    }
}
