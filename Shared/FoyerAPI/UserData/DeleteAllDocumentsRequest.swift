public import FoyerWire
public import NIOCore

/// Deletes every document of `uid`.
///
/// ```
/// string  uid   <= 64 bytes
/// ```
public struct DeleteAllDocumentsRequest: WireMessage, Hashable {
    public var uid: String

    public init(uid: String) { self.uid = uid }

    public init(from buffer: inout ByteBuffer) throws(WireError) {
        uid = try buffer.readLengthPrefixedString("deleteAll.uid", maxBytes: UserDataLimits.uidByteCountMax)
    }

    public func encode(into buffer: inout ByteBuffer) { buffer.writeLengthPrefixedString(uid) }
}
