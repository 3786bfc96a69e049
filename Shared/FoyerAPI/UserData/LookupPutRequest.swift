public import FoyerWire
public import NIOCore

/// Asks, before a `putOnce`, whether the op already wrote, and otherwise for the document as it stands.
///
/// ```
/// string  uid             <= 64 bytes
/// string  collection      checked: invalid-collection (transport cap 1024 bytes)
/// string  key             checked: invalid-key (transport cap 4096 bytes)
/// string  op              1–128 bytes of printable ASCII
/// bytes   requestDigest   1–64 bytes: the digest the `putOnce` will carry
/// ```
public struct LookupPutRequest: WireMessage, Hashable {
    public var uid: String
    public var collection: String
    public var key: String
    public var op: String
    public var requestDigest: [UInt8]

    public init(uid: String, collection: String, key: String, op: String, requestDigest: [UInt8]) {
        self.uid = uid
        self.collection = collection
        self.key = key
        self.op = op
        self.requestDigest = requestDigest
    }

    public init(from buffer: inout ByteBuffer) throws(WireError) {
        uid = try buffer.readLengthPrefixedString("lookupPut.uid", maxBytes: UserDataLimits.uidByteCountMax)
        collection = try buffer.readLengthPrefixedString(
            "lookupPut.collection",
            maxBytes: UserDataLimits.collectionWireByteCountMax
        )
        key = try buffer.readLengthPrefixedString("lookupPut.key", maxBytes: UserDataLimits.keyWireByteCountMax)
        op = try buffer.readLengthPrefixedString("lookupPut.op", maxBytes: UserDataLimits.operationIDByteCountMax)
        requestDigest = try buffer.readRequestDigest("lookupPut.requestDigest")
    }

    public func encode(into buffer: inout ByteBuffer) {
        buffer.writeLengthPrefixedString(uid)
        buffer.writeLengthPrefixedString(collection)
        buffer.writeLengthPrefixedString(key)
        buffer.writeLengthPrefixedString(op)
        buffer.writeLengthPrefixedBytes(requestDigest)
    }
}
