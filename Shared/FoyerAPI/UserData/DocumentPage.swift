public import FoyerWire
public import NIOCore

/// One page of `list` or `export`. A page holds at most the page size asked for and stops early, after at least
/// one document, when the next would take it over the server's page byte budget; so it always fits one frame.
///
/// ```
/// list StoredDocument   documents    <= 1000
/// optional bytes        nextCursor   absent on the last page (<= 1024 bytes)
/// ```
public struct DocumentPage: WireMessage, Hashable {
    public var documents: [StoredDocument]
    public var nextCursor: ByteBuffer?

    public init(documents: [StoredDocument], nextCursor: ByteBuffer?) {
        self.documents = documents
        self.nextCursor = nextCursor
    }

    public init(from buffer: inout ByteBuffer) throws(WireError) {
        // The smallest document: empty collection, key and value (a byte each), a one-byte version, an i64.
        let count = try buffer.readCount("page.documents", maxCount: UserDataLimits.pageSizeLimit, minElementBytes: 12)
        documents = []
        documents.reserveCapacity(count)
        for _ in 0..<count { documents.append(try StoredDocument(from: &buffer)) }
        nextCursor =
            try buffer.readBool()
            ? try buffer.readLengthPrefixedBuffer("page.nextCursor", maxBytes: UserDataLimits.cursorByteCountMax) : nil
    }

    public func encode(into buffer: inout ByteBuffer) {
        buffer.writeVarint(UInt64(documents.count))
        for document in documents { document.encode(into: &buffer) }
        buffer.writeBool(nextCursor != nil)
        if let nextCursor { buffer.writeLengthPrefixedBuffer(nextCursor) }
    }
}
