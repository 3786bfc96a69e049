import FoyerAPI
import FoyerCrypto
import FoyerLZ4
import FoyerWire
import NIOCore

/// Bytes on the wire for the messages Foyer sends most, as framed with and without LZ4 (the negotiated default:
/// bodies from 512 bytes, kept only when smaller).
enum MessageMix {
    struct Row: Codable, Sendable {
        var message: String
        var plainBytes: Int
        var compressedBytes: Int
        var saved: Double { plainBytes > 0 ? 1 - Double(compressedBytes) / Double(plainBytes) : 0 }

        enum CodingKeys: String, CodingKey { case message, plainBytes, compressedBytes }
    }

    static func run() -> [Row] {
        let allocator = ByteBufferAllocator()
        return messages().map { name, body in
            let frame = Frame.response(id: 1, body: body)
            var plain = allocator.buffer(capacity: body.readableBytes + FrameHeader.byteCount)
            frame.encode(into: &plain)
            var compressed = allocator.buffer(capacity: body.readableBytes + FrameHeader.byteCount)
            frame.compressed(threshold: BodyCompression.defaultThreshold, codec: .liblz4, allocator: allocator).encode(
                into: &compressed
            )
            return Row(message: name, plainBytes: plain.readableBytes, compressedBytes: compressed.readableBytes)
        }
    }

    /// The mix: a session (tokens are random, so barely compressible), a small and a 16 KiB JSON document, a list
    /// page of 100 small documents, and a 64 KiB binary value that does not compress at all.
    static func messages() -> [(String, ByteBuffer)] {
        let token = { (bytes: Int) in Base64URL.encode(SecureRandom.bytes(count: bytes)) }
        let session = SessionTokens(
            uid: token(16),
            isAnonymous: true,
            sessionID: token(16),
            accessToken: "eyJhbGciOiJFZERTQSIsImtpZCI6ImsxIiwidHlwIjoiSldUIn0." + token(180) + "." + token(64),
            accessTokenExpiresAtMilliseconds: 1_790_000_000_000,
            refreshToken: token(32),
            refreshTokenExpiresAtMilliseconds: 1_800_000_000_000
        )
        let small = LZ4Benchmark.payload(byteCount: 256)
        let large = LZ4Benchmark.payload(byteCount: 16_384)
        let page = DocumentPage(
            documents: (0..<100).map { index in
                StoredDocument(
                    collection: "notes",
                    key: "note-\(index)",
                    value: small,
                    version: UInt64(index % 5 + 1),
                    updatedAtMicroseconds: 1_790_000_000_000_000 + Int64(index) * 1_000_003
                )
            },
            nextCursor: ByteBuffer(bytes: SecureRandom.bytes(count: 24))
        )
        let binary = ByteBuffer(bytes: SecureRandom.bytes(count: 65_536))
        let document = { (value: ByteBuffer) in
            GetDocumentResponse(
                document: StoredDocument(
                    collection: "notes",
                    key: "k",
                    value: value,
                    version: 3,
                    updatedAtMicroseconds: 1_790_000_000_000_000
                )
            )
        }
        return [
            ("session (sign-in answer)", session.encoded()),
            ("document, 256 B JSON", document(small).encoded()),
            ("document, 16 KiB JSON", document(large).encoded()),
            ("list page, 100 × 256 B", page.encoded()),
            ("document, 64 KiB binary", document(binary).encoded()),
        ]
    }
}
