public import FoyerWire
public import NIOCore

/// `listDocuments`: `string accessToken`, `string collection`, `optional bytes cursor` (<= 1024, from the
/// previous page), `varint pageSize` (1–1000).
public struct GatewayListRequest: WireMessage, Hashable {
    public var accessToken: String
    public var collection: String
    public var cursor: ByteBuffer?
    public var pageSize: UInt64

    public init(accessToken: String, collection: String, cursor: ByteBuffer? = nil, pageSize: UInt64 = 100) {
        self.accessToken = accessToken
        self.collection = collection
        self.cursor = cursor
        self.pageSize = pageSize
    }

    public init(from buffer: inout ByteBuffer) throws(WireError) {
        accessToken = try buffer.readAccessToken()
        collection = try buffer.readLengthPrefixedString(
            "list.collection",
            maxBytes: UserDataLimits.collectionWireByteCountMax
        )
        cursor = try buffer.readOptional { (buffer) throws(WireError) in
            try buffer.readLengthPrefixedBuffer("list.cursor", maxBytes: UserDataLimits.cursorByteCountMax)
        }
        pageSize = try buffer.readPageSize("list.pageSize")
    }

    public func encode(into buffer: inout ByteBuffer) {
        buffer.writeLengthPrefixedString(accessToken)
        buffer.writeLengthPrefixedString(collection)
        buffer.writeOptional(cursor) { $0.writeLengthPrefixedBuffer($1) }
        buffer.writeVarint(pageSize)
    }
}
