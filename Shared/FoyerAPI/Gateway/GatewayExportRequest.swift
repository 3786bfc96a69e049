public import FoyerWire
public import NIOCore

/// `exportDocuments`: `string accessToken`, `optional bytes cursor` (<= 1024), `varint pageSize` (1–1000).
public struct GatewayExportRequest: WireMessage, Hashable {
    public var accessToken: String
    public var cursor: ByteBuffer?
    public var pageSize: UInt64

    public init(accessToken: String, cursor: ByteBuffer? = nil, pageSize: UInt64 = 100) {
        self.accessToken = accessToken
        self.cursor = cursor
        self.pageSize = pageSize
    }

    public init(from buffer: inout ByteBuffer) throws(WireError) {
        accessToken = try buffer.readAccessToken()
        cursor = try buffer.readOptional { (buffer) throws(WireError) in
            try buffer.readLengthPrefixedBuffer("export.cursor", maxBytes: UserDataLimits.cursorByteCountMax)
        }
        pageSize = try buffer.readPageSize("export.pageSize")
    }

    public func encode(into buffer: inout ByteBuffer) {
        buffer.writeLengthPrefixedString(accessToken)
        buffer.writeOptional(cursor) { $0.writeLengthPrefixedBuffer($1) }
        buffer.writeVarint(pageSize)
    }
}
