import FoyerAPI
import FoyerWire
import NIOCore

/// Where a page ended: the (collection, key) of its last document, tagged with the method that made it.
///
/// ```
/// u8      kind         1 list, 2 export
/// string  collection
/// string  key
/// ```
/// Opaque to clients; a cursor of the wrong kind, for another collection, or that does not decode is
/// `invalid-cursor`.
struct DocumentCursor: Hashable, Sendable {
    enum Kind: UInt8 {
        case list = 1
        case export = 2
    }

    let kind: Kind
    let collection: String
    let key: String

    init(kind: Kind, collection: String, key: String) {
        self.kind = kind
        self.collection = collection
        self.key = key
    }

    init(decoding bytes: ByteBuffer, kind expected: Kind) throws(UserDataError) {
        var buffer = bytes
        do {
            guard let kind = Kind(rawValue: try buffer.readWire(UInt8.self)), kind == expected else {
                throw UserDataError.invalidCursor
            }
            self.kind = kind
            collection = try buffer.readLengthPrefixedString(
                "cursor.collection",
                maxBytes: UserDataLimits.collectionByteCountMax
            )
            key = try buffer.readLengthPrefixedString("cursor.key", maxBytes: UserDataLimits.keyByteCountMax)
        } catch {
            throw UserDataError.invalidCursor
        }
        guard buffer.readableBytes == 0, UserDataLimits.isValidCollection(collection), UserDataLimits.isValidKey(key)
        else { throw UserDataError.invalidCursor }
    }

    var encoded: ByteBuffer {
        var buffer = ByteBuffer()
        buffer.writeInteger(kind.rawValue)
        buffer.writeLengthPrefixedString(collection)
        buffer.writeLengthPrefixedString(key)
        return buffer
    }
}
