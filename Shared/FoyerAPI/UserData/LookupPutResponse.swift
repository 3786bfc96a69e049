public import FoyerWire
public import NIOCore

/// What `lookupPut` found: the op's earlier write, or else the document as it stands.
///
/// ```
/// optional PutDocumentResponse  recorded   present when the op already wrote (with the same digest): its result
/// optional StoredDocument       document   the document now; always absent when `recorded` is present
/// ```
public struct LookupPutResponse: WireMessage, Hashable {
    public var recorded: PutDocumentResponse?
    public var document: StoredDocument?

    public init(recorded: PutDocumentResponse?, document: StoredDocument?) {
        self.recorded = recorded
        self.document = recorded == nil ? document : nil
    }

    public init(from buffer: inout ByteBuffer) throws(WireError) {
        recorded = try buffer.readOptional { (buffer) throws(WireError) in try PutDocumentResponse(from: &buffer) }
        document = try buffer.readOptional { (buffer) throws(WireError) in try StoredDocument(from: &buffer) }
        if recorded != nil && document != nil { throw .invalidValue("lookupPut.document") }
    }

    public func encode(into buffer: inout ByteBuffer) {
        buffer.writeOptional(recorded) { $1.encode(into: &$0) }
        buffer.writeOptional(document) { $1.encode(into: &$0) }
    }
}
