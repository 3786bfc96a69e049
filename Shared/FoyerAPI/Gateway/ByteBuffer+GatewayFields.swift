import FoyerWire
import NIOCore

/// Fields several gateway requests share.
extension ByteBuffer {
    mutating func readAccessToken() throws(WireError) -> String {
        try readLengthPrefixedString("accessToken", maxBytes: IdentityLimits.accessTokenByteCountMax)
    }

    mutating func readOperationID() throws(WireError) -> String {
        let value = try readLengthPrefixedString("operationID", maxBytes: GatewayLimits.operationIDByteCountMax)
        guard !value.isEmpty else { throw .invalidValue("operationID") }
        return value
    }

    /// Reads a page size of `listDocuments` or `exportDocuments`: 1 to `UserDataLimits.pageSizeLimit`.
    mutating func readPageSize(_ field: String) throws(WireError) -> UInt64 {
        let pageSize = try readVarint(field, max: UInt64(UserDataLimits.pageSizeLimit))
        guard pageSize >= 1 else { throw .invalidValue(field) }
        return pageSize
    }
}
