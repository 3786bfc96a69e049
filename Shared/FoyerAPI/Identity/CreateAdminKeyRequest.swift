public import FoyerWire
public import NIOCore

/// `createAdminKey` request.
///
/// ```
/// string name        1–64 bytes, each A–Z, a–z, 0–9, '.', '_', '@' or '-': a label (not unique; the key id is)
/// string createdBy   <= 64 bytes: the key id of the admin who made it, or "cluster-secret"
/// ```
public struct CreateAdminKeyRequest: WireMessage, Hashable {
    /// What `createdBy` says when the key was made with the cluster secret rather than by another admin key.
    public static let createdByClusterSecret = "cluster-secret"

    public var name: String
    public var createdBy: String

    public init(name: String, createdBy: String = CreateAdminKeyRequest.createdByClusterSecret) {
        self.name = name
        self.createdBy = createdBy
    }

    public init(from buffer: inout ByteBuffer) throws(WireError) {
        name = try buffer.readLengthPrefixedString("adminKey.name", maxBytes: IdentityLimits.adminKeyNameByteCountMax)
        guard Self.isAcceptableName(name) else { throw .invalidValue("adminKey.name") }
        createdBy = try buffer.readLengthPrefixedString(
            "adminKey.createdBy",
            maxBytes: IdentityLimits.adminKeyIDByteCountMax
        )
    }

    /// Whether `name` is 1–64 bytes of `A–Z a–z 0–9 . _ @ -`.
    public static func isAcceptableName(_ name: String) -> Bool {
        let bytes = name.utf8
        guard (1...IdentityLimits.adminKeyNameByteCountMax).contains(bytes.count) else { return false }
        return bytes.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "@"),
                UInt8(ascii: "-"):
                return true
            default:
                return false
            }
        }
    }

    public func encode(into buffer: inout ByteBuffer) {
        buffer.writeLengthPrefixedString(name)
        buffer.writeLengthPrefixedString(createdBy)
    }
}
