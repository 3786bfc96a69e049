public import FoyerWire
public import NIOCore

/// An admin key as identity describes it (never its secret): the answer of `revokeAdminKey` and `verifyAdminKey`, an
/// element of ``AdminKeys``.
///
/// ```
/// string keyID                                       <= 64 bytes: 16 lowercase hex digits today
/// string name                                        <= 64 bytes
/// u64    createdAtMilliseconds
/// string createdBy                                   <= 64 bytes: a key id, or "cluster-secret"
/// bool   hasRevokedAt, u64 revokedAtMilliseconds
/// bool   hasLastUsedAt, u64 lastUsedAtMilliseconds   verified last (recorded at most once a minute)
/// ```
public struct AdminKeyInfo: WireMessage, Hashable {
    public var keyID: String
    public var name: String
    public var createdAtMilliseconds: UInt64
    public var createdBy: String
    public var revokedAtMilliseconds: UInt64?
    public var lastUsedAtMilliseconds: UInt64?

    public init(
        keyID: String,
        name: String,
        createdAtMilliseconds: UInt64,
        createdBy: String,
        revokedAtMilliseconds: UInt64? = nil,
        lastUsedAtMilliseconds: UInt64? = nil
    ) {
        self.keyID = keyID
        self.name = name
        self.createdAtMilliseconds = createdAtMilliseconds
        self.createdBy = createdBy
        self.revokedAtMilliseconds = revokedAtMilliseconds
        self.lastUsedAtMilliseconds = lastUsedAtMilliseconds
    }

    public init(from buffer: inout ByteBuffer) throws(WireError) {
        keyID = try buffer.readLengthPrefixedString("adminKey.keyID", maxBytes: IdentityLimits.adminKeyIDByteCountMax)
        name = try buffer.readLengthPrefixedString("adminKey.name", maxBytes: IdentityLimits.adminKeyNameByteCountMax)
        createdAtMilliseconds = try buffer.readWire()
        createdBy = try buffer.readLengthPrefixedString(
            "adminKey.createdBy",
            maxBytes: IdentityLimits.adminKeyIDByteCountMax
        )
        revokedAtMilliseconds = try buffer.readOptional { (buffer) throws(WireError) in try buffer.readWire(UInt64.self)
        }
        lastUsedAtMilliseconds = try buffer.readOptional { (buffer) throws(WireError) in
            try buffer.readWire(UInt64.self)
        }
    }

    public func encode(into buffer: inout ByteBuffer) {
        buffer.writeLengthPrefixedString(keyID)
        buffer.writeLengthPrefixedString(name)
        buffer.writeInteger(createdAtMilliseconds)
        buffer.writeLengthPrefixedString(createdBy)
        buffer.writeOptional(revokedAtMilliseconds) { $0.writeInteger($1) }
        buffer.writeOptional(lastUsedAtMilliseconds) { $0.writeInteger($1) }
    }
}
