public import FoyerWire
public import NIOCore

/// The document, if there is one.
///
/// ```
/// optional StoredDocument   document   absent when there is no such document
/// ```
public struct GetDocumentResponse: WireMessage, Hashable {
    public var document: StoredDocument?

    public init(document: StoredDocument?) { self.document = document }

    public init(from buffer: inout ByteBuffer) throws(WireError) {
        document = try buffer.readBool() ? try StoredDocument(from: &buffer) : nil
    }

    public func encode(into buffer: inout ByteBuffer) {
        buffer.writeBool(document != nil)
        document?.encode(into: &buffer)
    }
}
