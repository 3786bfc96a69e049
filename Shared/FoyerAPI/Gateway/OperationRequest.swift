public import FoyerWire
public import NIOCore

/// A multi-service operation of the caller: `string accessToken`, `string operationID` (1–128 bytes).
public struct OperationRequest: WireMessage, Hashable {
    public var accessToken: String
    public var operationID: String

    public init(accessToken: String, operationID: String) {
        self.accessToken = accessToken
        self.operationID = operationID
    }

    public init(from buffer: inout ByteBuffer) throws(WireError) {
        accessToken = try buffer.readAccessToken()
        operationID = try buffer.readOperationID()
    }

    public func encode(into buffer: inout ByteBuffer) {
        buffer.writeLengthPrefixedString(accessToken)
        buffer.writeLengthPrefixedString(operationID)
    }
}
