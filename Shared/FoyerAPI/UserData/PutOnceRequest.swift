public import FoyerWire
public import NIOCore

/// Writes `value` under (uid, collection, key) once per (uid, op): `put`, remembered under an operation key so that
/// a retry answers the first write's result instead of writing again, and made only while the document is the
/// `base` the caller charged the write against (otherwise the answer is the document as found).
///
/// ```
/// string           uid               <= 64 bytes
/// string           collection        checked: invalid-collection (transport cap 1024 bytes)
/// string           key               checked: invalid-key (transport cap 4096 bytes)
/// bytes            value             any bytes; over the server's cap: value-too-large
/// optional varint  expectedVersion   the client's condition: absent: none; 0: create only; n: only at version n
///                                    (else version-mismatch)
/// PutBase          base              the document the caller charged the write against (version 0: none)
/// string           op                1–128 bytes of printable ASCII, chosen by the caller, per uid
/// string           attempt           1–128 bytes of printable ASCII: this attempt's id (its own retries send
///                                    the same), so that the answer can tell its own write from another's
/// bytes            requestDigest     1–64 bytes: the caller's digest of what it was asked to write; the same op
///                                    with another digest is op-conflict
/// ```
public struct PutOnceRequest: WireMessage, Hashable {
    public var uid: String
    public var collection: String
    public var key: String
    public var value: ByteBuffer
    public var expectedVersion: UInt64?
    public var base: PutBase
    public var op: String
    public var attempt: String
    public var requestDigest: [UInt8]

    public init(
        uid: String,
        collection: String,
        key: String,
        value: ByteBuffer,
        expectedVersion: UInt64? = nil,
        base: PutBase,
        op: String,
        attempt: String,
        requestDigest: [UInt8]
    ) {
        self.uid = uid
        self.collection = collection
        self.key = key
        self.value = value
        self.expectedVersion = expectedVersion
        self.base = base
        self.op = op
        self.attempt = attempt
        self.requestDigest = requestDigest
    }

    public init(from buffer: inout ByteBuffer) throws(WireError) {
        uid = try buffer.readLengthPrefixedString("putOnce.uid", maxBytes: UserDataLimits.uidByteCountMax)
        collection = try buffer.readLengthPrefixedString(
            "putOnce.collection",
            maxBytes: UserDataLimits.collectionWireByteCountMax
        )
        key = try buffer.readLengthPrefixedString("putOnce.key", maxBytes: UserDataLimits.keyWireByteCountMax)
        value = try buffer.readLengthPrefixedBuffer("putOnce.value", maxBytes: UserDataLimits.valueWireByteCountMax)
        expectedVersion = try buffer.readOptional { (buffer) throws(WireError) in try buffer.readVarint() }
        base = try PutBase(from: &buffer)
        op = try buffer.readLengthPrefixedString("putOnce.op", maxBytes: UserDataLimits.operationIDByteCountMax)
        attempt = try buffer.readLengthPrefixedString(
            "putOnce.attempt",
            maxBytes: UserDataLimits.operationIDByteCountMax
        )
        requestDigest = try buffer.readRequestDigest("putOnce.requestDigest")
    }

    public func encode(into buffer: inout ByteBuffer) {
        buffer.writeLengthPrefixedString(uid)
        buffer.writeLengthPrefixedString(collection)
        buffer.writeLengthPrefixedString(key)
        buffer.writeLengthPrefixedBuffer(value)
        buffer.writeOptional(expectedVersion) { $0.writeVarint($1) }
        base.encode(into: &buffer)
        buffer.writeLengthPrefixedString(op)
        buffer.writeLengthPrefixedString(attempt)
        buffer.writeLengthPrefixedBytes(requestDigest)
    }
}

extension ByteBuffer {
    /// A request digest: 1–`UserDataLimits.requestDigestByteCountMax` bytes.
    mutating func readRequestDigest(_ field: String) throws(WireError) -> [UInt8] {
        let digest = try readLengthPrefixedBytes(field, maxBytes: UserDataLimits.requestDigestByteCountMax)
        guard !digest.isEmpty else { throw .invalidValue(field) }
        return digest
    }
}
