public import Crypto
public import FoyerAPI

extension FoyerClient {
    /// Registers the device key in `store` for the signed-in guest, making one (and keeping it in `store`) when
    /// there is none, and answers the key's id. After a reinstall, ``signInWithDeviceKey(from:)`` with the same
    /// store gets a session for the same guest, with its data and its counted quota.
    ///
    /// A member is refused (`wrongAccountKind`): device keys are for guests. A key already registered to another
    /// guest is `credentialAlreadyInUse` (the store's key is left as it is: it still signs in to that guest).
    @discardableResult
    public func registerDeviceKey(in store: some DeviceKeyStore) async throws(FoyerError) -> [UInt8] {
        let key: P256.Signing.PrivateKey
        if let existing = try store.existingKey() {
            key = existing
        } else {
            key = P256.Signing.PrivateKey()
            try store.store(key)
        }
        let challenge = try await deviceKeyChallenge(for: .register)
        let signature = try key.deviceKeySignature(of: challenge, for: .register)
        let registered = try await authorized(GatewayMethods.registerDeviceKey) {
            DeviceKeyRegisterRequest(
                accessToken: $0,
                publicKey: Array(key.publicKey.x963Representation),
                challenge: challenge.challenge,
                signature: signature
            )
        }
        return registered.keyID
    }

    /// Signs in with the device key in `store` (a fresh challenge, signed) and adopts the session: the guest that
    /// registered the key. Answers nil, without a call, when `store` holds no key. A key the server no longer knows
    /// (signed out everywhere, the guest deleted or now a member) is `invalidCredentials` or `wrongAccountKind`.
    @discardableResult
    public func signInWithDeviceKey(from store: some DeviceKeyStore) async throws(FoyerError) -> SessionTokens? {
        guard let key = try store.existingKey() else { return nil }
        let challenge = try await deviceKeyChallenge(for: .signIn)
        let signature = try key.deviceKeySignature(of: challenge, for: .signIn)
        return try await signIn(
            with: .deviceKey(keyID: key.deviceKeyID, challenge: challenge.challenge, signature: signature)
        )
    }

    /// A fresh single-use challenge (5 minutes) for `purpose`, for an app that signs with a key of its own (a
    /// Secure Enclave key, say): sign `DeviceKey.signedMessage(purpose:issuer:challenge:)` with ECDSA P-256 and
    /// SHA-256, raw `r || s`, then `signIn(with: .deviceKey(...))`.
    public func deviceKeyChallenge(for purpose: DeviceKeyPurpose) async throws(FoyerError) -> DeviceKeyChallenge {
        try await call(GatewayMethods.deviceKeyChallenge, CreateDeviceKeyChallengeRequest(purpose: purpose))
    }
}
