public import NIOCore

/// The body of the server's HELLO_ACK frame: the terms of the connection.
///
/// ```
/// u32    frameLengthMax         largest `len` the server accepts
/// u16    maxInFlight            requests the client may have in flight (<= what it asked for)
/// u8     compression            the chosen algorithm: 0 none, or one CompressionAlgorithms bit
/// u32    compressionThreshold   bodies under this many bytes are never compressed
/// u32    idleTimeoutMs          the server closes a connection that sends nothing for this long
/// string serverName             for logs (<= 64 bytes)
/// u8     authMethod             0 none, 1 HMAC-SHA-256 (then: bytes nonce (32), bytes proof (32))
/// [1.1]  u8 features            HelloFeatures; only to a client whose preface minor is 1 or more, and only when
///                               not empty (an ack without it means no features)
/// ```
///
/// With method 1 the server proves it holds the secret too:
/// `proof = HMAC-SHA-256(secret, "FOYR-HELLO-ACK-1" || 0x00 || client nonce || the body up to the proof)`.
public struct HelloAck: WireMessage, Hashable {
    public static let signatureContext: [UInt8] = Array("FOYR-HELLO-ACK-1".utf8) + [0]

    public var frameLengthMax: UInt32
    public var maxInFlight: UInt16
    public var compression: CompressionAlgorithms
    public var compressionThreshold: UInt32
    public var idleTimeoutMilliseconds: UInt32
    public var serverName: String
    /// The server's nonce and proof; `timestampMilliseconds` is unused (0) here.
    public var proof: HelloProof?
    /// The features byte at the end of the body (protocol 1.1); `nil`: absent, as a 1.0 server sends it (no
    /// features). Not covered by the proof (see docs/PROTOCOL.md, 6.2).
    public var features: HelloFeatures?

    public init(
        frameLengthMax: UInt32,
        maxInFlight: UInt16,
        compression: CompressionAlgorithms,
        compressionThreshold: UInt32,
        idleTimeoutMilliseconds: UInt32,
        serverName: String,
        proof: HelloProof? = nil,
        features: HelloFeatures? = nil
    ) {
        self.frameLengthMax = frameLengthMax
        self.maxInFlight = maxInFlight
        self.compression = compression
        self.compressionThreshold = compressionThreshold
        self.idleTimeoutMilliseconds = idleTimeoutMilliseconds
        self.serverName = serverName
        self.proof = proof
        self.features = features
    }

    public init(from buffer: inout ByteBuffer) throws(WireError) {
        frameLengthMax = try buffer.readWire()
        maxInFlight = try buffer.readWire()
        compression = CompressionAlgorithms(rawValue: try buffer.readWire())
        compressionThreshold = try buffer.readWire()
        idleTimeoutMilliseconds = try buffer.readWire()
        serverName = try buffer.readLengthPrefixedString("helloAck.serverName", maxBytes: Hello.nameByteCountMax)
        proof = try HelloProof.readOptional(from: &buffer, nonceByteCount: HelloProof.nonceByteCount) { _ in 0 }
        features = buffer.readableBytes > 0 ? HelloFeatures(rawValue: try buffer.readWire()) : nil
        guard frameLengthMax >= UInt32(FrameHeader.lengthCoveredByteCount) else {
            throw .invalidValue("helloAck.frameLengthMax")
        }
        guard maxInFlight > 0 else { throw .invalidValue("helloAck.maxInFlight") }
        guard compression.rawValue.nonzeroBitCount <= 1 else { throw .invalidValue("helloAck.compression") }
    }

    public func encode(into buffer: inout ByteBuffer) {
        encodeSignedPart(into: &buffer)
        if let proof { buffer.writeLengthPrefixedBytes(proof.proof) }
        if let features { buffer.writeInteger(features.rawValue) }
    }

    public func encodeSignedPart(into buffer: inout ByteBuffer) {
        buffer.writeMultipleIntegers(
            frameLengthMax,
            maxInFlight,
            compression.rawValue,
            compressionThreshold,
            idleTimeoutMilliseconds
        )
        buffer.writeLengthPrefixedString(serverName, truncatingToBytes: Hello.nameByteCountMax)
        if let proof {
            buffer.writeInteger(AuthMethod.hmacSHA256.rawValue)
            buffer.writeLengthPrefixedBytes(proof.nonce)
        } else {
            buffer.writeInteger(AuthMethod.none.rawValue)
        }
    }
}
