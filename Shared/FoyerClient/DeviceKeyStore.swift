public import Crypto
import Foundation
public import FoyerAPI

#if canImport(Security)
import Security
#endif

#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Where the app keeps its device key (`FoyerClient.registerDeviceKey(in:)`, `signInWithDeviceKey(from:)`): a
/// P-256 private key that must outlive the app's own data, so that after a reinstall the same guest comes back.
///
/// Two stores come with the client: ``FileDeviceKeyStore`` (a file with mode 0600; Linux, the command line) and,
/// on Apple platforms, ``KeychainDeviceKeyStore``. Both keep a software key (CryptoKit's on Apple platforms); a
/// Secure Enclave key would need a store of its own, which the client does not offer yet.
public protocol DeviceKeyStore: Sendable {
    /// The stored key, or nil when there is none.
    func existingKey() throws(FoyerError) -> P256.Signing.PrivateKey?
    /// Keeps `key`, replacing any stored one.
    func store(_ key: P256.Signing.PrivateKey) throws(FoyerError)
    /// Forgets the stored key (nothing if there is none).
    func removeKey() throws(FoyerError)
}

extension P256.Signing.PrivateKey {
    /// The key's id as the server names it: SHA-256 of its uncompressed public point.
    public var deviceKeyID: [UInt8] { Array(SHA256.hash(data: publicKey.x963Representation)) }

    /// The raw `r || s` signature of `DeviceKey.signedMessage(purpose:issuer:challenge:)` for `challenge`.
    public func deviceKeySignature(
        of challenge: DeviceKeyChallenge,
        for purpose: DeviceKeyPurpose
    ) throws(FoyerError)
        -> [UInt8]
    {
        let message = DeviceKey.signedMessage(
            purpose: purpose,
            issuer: challenge.issuer,
            challenge: challenge.challenge
        )
        do {
            return Array(try signature(for: message).rawRepresentation)
        } catch {
            throw .invalidInput("the device key cannot sign: \(error)")
        }
    }
}

/// A device key in a file: its 32-byte raw private key, written atomically with mode 0600 (whoever reads the file
/// can sign in as the guest). For Linux and the command line; an iOS app uses ``KeychainDeviceKeyStore``.
public struct FileDeviceKeyStore: DeviceKeyStore {
    public let path: String

    public init(path: String) {
        self.path = path
    }

    public func existingKey() throws(FoyerError) -> P256.Signing.PrivateKey? {
        guard let data = FileManager.default.contents(atPath: path) else {
            guard access(path, F_OK) != 0, errno == ENOENT else {
                throw .sessionStorage("cannot read the device key file \(path)")
            }
            return nil
        }
        do {
            return try P256.Signing.PrivateKey(rawRepresentation: data)
        } catch {
            throw .sessionStorage("the device key file \(path) does not hold a P-256 key")
        }
    }

    public func store(_ key: P256.Signing.PrivateKey) throws(FoyerError) {
        try StoredSession.writeAtomically(Array(key.rawRepresentation), to: path, what: "device key file")
    }

    public func removeKey() throws(FoyerError) {
        guard unlink(path) == 0 || errno == ENOENT else {
            throw .sessionStorage("cannot remove the device key file \(path): \(String(cString: strerror(errno)))")
        }
    }
}

#if canImport(Security)
/// A device key in the iOS (or macOS) Keychain: the raw private key as a generic-password item of this device
/// only (`kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly`: never synced, never restored to another device).
/// iOS has kept Keychain items when an app is deleted, so a reinstall finds it; that is observed behaviour, not a
/// documented guarantee, so an app should treat a missing key as a new guest, not as an error.
///
/// Not compiled or tested on the machines that test this package (Linux): kept to the three Keychain calls.
public struct KeychainDeviceKeyStore: DeviceKeyStore {
    public let service: String
    public let account: String

    public init(service: String = "foyer.device-key", account: String = "default") {
        self.service = service
        self.account = account
    }

    private var query: [String: Any] {
        [
            kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: service,
            kSecAttrAccount as String: account,
        ]
    }

    public func existingKey() throws(FoyerError) -> P256.Signing.PrivateKey? {
        var lookup = query
        lookup[kSecReturnData as String] = true
        lookup[kSecMatchLimit as String] = kSecMatchLimitOne
        var item: CFTypeRef?
        let status = SecItemCopyMatching(lookup as CFDictionary, &item)
        if status == errSecItemNotFound { return nil }
        guard status == errSecSuccess, let data = item as? Data else {
            throw .sessionStorage("cannot read the device key from the Keychain (\(status))")
        }
        do {
            return try P256.Signing.PrivateKey(rawRepresentation: data)
        } catch {
            throw .sessionStorage("the Keychain's device key is not a P-256 key")
        }
    }

    public func store(_ key: P256.Signing.PrivateKey) throws(FoyerError) {
        try removeKey()
        var item = query
        item[kSecValueData as String] = key.rawRepresentation
        item[kSecAttrAccessible as String] = kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly
        let status = SecItemAdd(item as CFDictionary, nil)
        guard status == errSecSuccess else {
            throw .sessionStorage("cannot keep the device key in the Keychain (\(status))")
        }
    }

    public func removeKey() throws(FoyerError) {
        let status = SecItemDelete(query as CFDictionary)
        guard status == errSecSuccess || status == errSecItemNotFound else {
            throw .sessionStorage("cannot remove the device key from the Keychain (\(status))")
        }
    }
}
#endif
