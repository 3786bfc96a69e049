public import FoyerWire
public import NIOCore

/// `getDocument` and `deleteDocument`: `string accessToken`, `string collection`, `string key`.
public struct GatewayDocumentRequest: WireMessage, Hashable {
    public var accessToken: String
    public var collection: String
    public var key: String

    public init(accessToken: String, collection: String, key: String) {
        self.accessToken = accessToken
        self.collection = collection
        self.key = key
    }

    public init(from buffer: inout ByteBuffer) throws(WireError) {
        accessToken = try buffer.readAccessToken()
        collection = try buffer.readLengthPrefixedString(
            "document.collection",
            maxBytes: UserDataLimits.collectionWireByteCountMax
        )
        key = try buffer.readLengthPrefixedString("document.key", maxBytes: UserDataLimits.keyWireByteCountMax)
    }

    public func encode(into buffer: inout ByteBuffer) {
        buffer.writeLengthPrefixedString(accessToken)
        buffer.writeLengthPrefixedString(collection)
        buffer.writeLengthPrefixedString(key)
    }
}
