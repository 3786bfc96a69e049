import FoyerBase64URL
public import NIOCore

/// A page cursor (`DocumentPage.nextCursor`) as text: base64url, for a URL, a file or a command line.
public enum PageCursor {
    /// The cursor as base64url text.
    public static func text(_ cursor: ByteBuffer) -> String {
        Base64URL.encode(Array(cursor.readableBytesView))
    }

    /// The cursor that `text` wrote.
    ///
    /// - Throws: `invalid-input` if the text is not base64url (the gateway judges the bytes: `invalid-cursor`).
    public static func cursor(_ text: String) throws(FoyerError) -> ByteBuffer {
        guard let bytes = try? Base64URL.decode(text, maxEncodedLength: 2048) else {
            throw .invalidInput("'\(text)' is not a page cursor")
        }
        return ByteBuffer(bytes: bytes)
    }
}
