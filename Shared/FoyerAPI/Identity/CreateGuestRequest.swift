public import FoyerWire
public import NIOCore

/// `createGuest` request.
///
/// ```
/// string idempotencyKey   22–128 characters, each A–Z, a–z, 0–9, '-' or '_' (the base64url alphabet, no
///                         padding), not shaped like a UUID; it must carry at least 128 random bits, e.g.
///                         base64url of 16 random bytes (22 characters), as FoyerClient makes them
/// bool   hasUID, string uid   the uid to create a new guest under: 32 lowercase hexadecimal digits (128 random
///                         bits, as identity makes them), proposed by the gateway, which opened the guest's quota
///                         account under it at admission; a key seen before answers its own guest whatever uid is
///                         proposed, and without one identity makes the uid
/// ```
///
/// The key is a secret: whoever repeats it within the window gets a session for the same guest. Identity
/// stores only its SHA-256. Identity can check only the form; the randomness is the caller's duty.
public struct CreateGuestRequest: WireMessage, Hashable {
    /// Keys shorter than this are refused (`invalid-argument`): 22 base64url characters are the shortest that can
    /// hold 128 bits.
    public static let idempotencyKeyByteCountMin = 22

    public var idempotencyKey: String
    public var uid: String?

    public init(idempotencyKey: String, uid: String? = nil) {
        self.idempotencyKey = idempotencyKey
        self.uid = uid
    }

    public init(from buffer: inout ByteBuffer) throws(WireError) {
        idempotencyKey = try buffer.readLengthPrefixedString(
            "createGuest.idempotencyKey",
            maxBytes: IdentityLimits.idempotencyKeyByteCountMax
        )
        guard Self.isAcceptableIdempotencyKey(idempotencyKey) else {
            throw .invalidValue("createGuest.idempotencyKey")
        }
        uid = try buffer.readOptional { (buffer) throws(WireError) in
            try buffer.readLengthPrefixedString("createGuest.uid", maxBytes: IdentityLimits.uidByteCountMax)
        }
        if let uid, !Self.isNewUID(uid) { throw .invalidValue("createGuest.uid") }
    }

    /// Whether `uid` has the form of a uid identity makes: 32 lowercase hexadecimal digits.
    public static func isNewUID(_ uid: String) -> Bool {
        uid.utf8.count == 32
            && uid.utf8.allSatisfy {
                (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0)
                    || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains($0)
            }
    }

    /// Whether `key` has the form of a guest sign-in key: 22–128 base64url characters, not a UUID (whose 122 bits
    /// at best fall short of 128, and which are often not random at all).
    public static func isAcceptableIdempotencyKey(_ key: String) -> Bool {
        let bytes = Array(key.utf8)
        guard bytes.count >= idempotencyKeyByteCountMin, bytes.count <= IdentityLimits.idempotencyKeyByteCountMax,
            bytes.allSatisfy(isBase64URL)
        else { return false }
        return !isUUID(bytes)
    }

    private static func isBase64URL(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"):
            return true
        default:
            return false
        }
    }

    /// `8-4-4-4-12` hexadecimal digits.
    private static func isUUID(_ bytes: [UInt8]) -> Bool {
        guard bytes.count == 36 else { return false }
        return bytes.indices.allSatisfy { index in
            [8, 13, 18, 23].contains(index)
                ? bytes[index] == UInt8(ascii: "-")
                : (Character(Unicode.Scalar(bytes[index])).isHexDigit)
        }
    }

    public func encode(into buffer: inout ByteBuffer) {
        buffer.writeLengthPrefixedString(idempotencyKey)
        buffer.writeOptional(uid) { $0.writeLengthPrefixedString($1) }
    }
}
