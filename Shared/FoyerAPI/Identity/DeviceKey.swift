/// A device key: a P-256 ECDSA key pair an app keeps on the device (iOS: the Keychain, which survives a reinstall),
/// registered to a guest, so that after a reinstall the app proves possession and gets a session for the same guest.
///
/// What the device signs (ECDSA P-256 with SHA-256 over these bytes; the signature sent as raw `r || s`, 32 bytes
/// each, big-endian):
///
/// ```
/// "foyer-device-key-v1"   19 ASCII bytes, then one 0x00
/// purpose                 "sign-in" or "register" (ASCII), then one 0x00
/// issuer                  the deployment's issuer from the challenge (UTF-8), then one 0x00
/// challenge               the 32 bytes of the challenge
/// ```
///
/// So a signature made for one purpose, deployment or challenge is worth nothing for another. The key id is
/// SHA-256 of the key's uncompressed SEC1 point (65 bytes: 0x04, x, y), computed alike by the client and identity.
public enum DeviceKey {
    /// The fixed context string at the start of every signed message.
    public static let context = "foyer-device-key-v1"
    /// A challenge is exactly this many random bytes.
    public static let challengeByteCount = 32
    /// A key id is exactly this many bytes (SHA-256).
    public static let keyIDByteCount = 32
    /// A signature is exactly this many bytes: raw `r || s`.
    public static let signatureByteCount = 64
    /// The public key's encodings identity accepts: compressed SEC1 (33), raw `x || y` (64), uncompressed SEC1 /
    /// x9.63 (65).
    public static let publicKeyByteCounts: Set<Int> = [33, 64, 65]
    /// The longest public key on the wire.
    public static let publicKeyByteCountMax = 65
    /// The longest issuer in a challenge.
    public static let issuerByteCountMax = 2048
    /// Keys one user may hold; registering one more replaces the least recently used.
    public static let keysPerUserMax = 5

    /// The exact bytes the device signs for `purpose`, the deployment's `issuer` and `challenge`.
    public static func signedMessage(purpose: DeviceKeyPurpose, issuer: String, challenge: [UInt8]) -> [UInt8] {
        var message = Array(context.utf8)
        message.append(0)
        message += Array(purpose.label.utf8)
        message.append(0)
        message += Array(issuer.utf8)
        message.append(0)
        message += challenge
        return message
    }
}

/// What a device-key challenge is for (`u8`): a challenge of one purpose is refused for the other.
public enum DeviceKeyPurpose: UInt8, Sendable, CaseIterable {
    /// Signing in to the guest that registered the key.
    case signIn = 1
    /// Registering a new key (proving the caller holds its private key).
    case register = 2

    /// The purpose's text in the signed message.
    public var label: String {
        switch self {
        case .signIn: "sign-in"
        case .register: "register"
        }
    }
}
