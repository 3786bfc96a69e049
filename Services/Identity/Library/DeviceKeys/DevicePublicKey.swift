import Crypto
import FoyerAPI

/// A device's P-256 public key, checked to be a point on the curve, and its signatures.
struct DevicePublicKey: Sendable {
    private let key: P256.Signing.PublicKey

    /// The key from its compressed SEC1 (33 bytes), raw `x || y` (64) or uncompressed SEC1 (65) encoding; nil when
    /// the bytes are none of these or not a point on the curve.
    init?(_ bytes: [UInt8]) {
        do {
            switch bytes.count {
            case 33: key = try P256.Signing.PublicKey(compressedRepresentation: bytes)
            case 64: key = try P256.Signing.PublicKey(rawRepresentation: bytes)
            case 65: key = try P256.Signing.PublicKey(x963Representation: bytes)
            default: return nil
            }
        } catch {
            return nil
        }
    }

    /// The uncompressed SEC1 point (0x04, x, y): what identity stores, whatever encoding the client sent.
    var uncompressed: [UInt8] { Array(key.x963Representation) }

    /// The key's id: SHA-256 of its uncompressed point.
    var keyID: [UInt8] { Array(Crypto.SHA256.hash(data: key.x963Representation)) }

    /// Whether `signature` (raw `r || s`) is this key's ECDSA signature of `message` with SHA-256.
    func verifies(_ signature: [UInt8], of message: [UInt8]) -> Bool {
        guard let parsed = try? P256.Signing.ECDSASignature(rawRepresentation: signature) else { return false }
        return key.isValidSignature(parsed, for: message)
    }
}
