public import NIOCore

/// Compression algorithms a peer supports (a bit set in HELLO) or chose (one bit or none in HELLO_ACK).
public struct CompressionAlgorithms: OptionSet, Hashable, Sendable {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// LZ4 block format with a `u32` uncompressed-length prefix.
    public static let lz4 = CompressionAlgorithms(rawValue: 1 << 0)
}

/// Proof that the sender of a HELLO holds the cluster secret, without sending it.
///
/// `proof = HMAC-SHA-256(secret, "FOYR-HELLO-1" || 0x00 || the HELLO body up to the proof)`. The server
/// accepts a timestamp within its allowed skew and a nonce it has not seen within that window, so a recorded
/// HELLO cannot be played back.
public struct HelloProof: Hashable, Sendable {
    public static let nonceByteCount = 32
    public static let proofByteCount = 32

    public var timestampMilliseconds: UInt64
    public var nonce: [UInt8]
    public var proof: [UInt8]

    public init(timestampMilliseconds: UInt64, nonce: [UInt8], proof: [UInt8]) {
        self.timestampMilliseconds = timestampMilliseconds
        self.nonce = nonce
        self.proof = proof
    }
}

/// The body of the client's HELLO frame.
///
/// ```
/// u32    frameLengthMax    largest `len` the client accepts
/// u16    maxInFlight       requests the client would like to have in flight (1...)
/// u8     compression       CompressionAlgorithms the client supports
/// string peerName          who is calling, for logs (<= 64 bytes)
/// string service           the service the client means to reach, "" for any (<= 64 bytes)
/// u8     authMethod        0 none, 1 HMAC-SHA-256 cluster-secret proof
/// [if 1] u64 timestampMs, bytes nonce (32), bytes proof (32)
/// ```
public struct Hello: WireMessage, Hashable {
    public static let nameByteCountMax = 64
    public static let signatureContext: [UInt8] = Array("FOYR-HELLO-1".utf8) + [0]

    public var frameLengthMax: UInt32
    public var maxInFlight: UInt16
    public var compression: CompressionAlgorithms
    public var peerName: String
    public var service: String
    public var proof: HelloProof?

    public init(
        frameLengthMax: UInt32,
        maxInFlight: UInt16,
        compression: CompressionAlgorithms,
        peerName: String,
        service: String,
        proof: HelloProof? = nil
    ) {
        self.frameLengthMax = frameLengthMax
        self.maxInFlight = maxInFlight
        self.compression = compression
        self.peerName = peerName
        self.service = service
        self.proof = proof
    }

    public init(from buffer: inout ByteBuffer) throws(WireError) {
        frameLengthMax = try buffer.readWire()
        maxInFlight = try buffer.readWire()
        compression = CompressionAlgorithms(rawValue: try buffer.readWire())
        peerName = try buffer.readLengthPrefixedString("hello.peerName", maxBytes: Self.nameByteCountMax)
        service = try buffer.readLengthPrefixedString("hello.service", maxBytes: Self.nameByteCountMax)
        proof = try HelloProof.readOptional(from: &buffer, nonceByteCount: HelloProof.nonceByteCount) {
            (buffer) throws(WireError) in try buffer.readWire(UInt64.self)
        }
        guard frameLengthMax >= UInt32(FrameHeader.lengthCoveredByteCount) else {
            throw .invalidValue("hello.frameLengthMax")
        }
        guard maxInFlight > 0 else { throw .invalidValue("hello.maxInFlight") }
    }

    public func encode(into buffer: inout ByteBuffer) {
        encodeSignedPart(into: &buffer)
        if let proof { buffer.writeLengthPrefixedBytes(proof.proof) }
    }

    /// The bytes the proof covers: the whole body up to, not including, the proof itself.
    public func encodeSignedPart(into buffer: inout ByteBuffer) {
        buffer.writeMultipleIntegers(frameLengthMax, maxInFlight, compression.rawValue)
        // Names longer than the cap are cut rather than making the whole HELLO invalid.
        buffer.writeLengthPrefixedString(peerName, truncatingToBytes: Self.nameByteCountMax)
        buffer.writeLengthPrefixedString(service, truncatingToBytes: Self.nameByteCountMax)
        if let proof {
            buffer.writeInteger(AuthMethod.hmacSHA256.rawValue)
            buffer.writeInteger(proof.timestampMilliseconds)
            buffer.writeLengthPrefixedBytes(proof.nonce)
        } else {
            buffer.writeInteger(AuthMethod.none.rawValue)
        }
    }
}

/// How a handshake proves knowledge of the cluster secret.
public enum AuthMethod: UInt8, Sendable {
    case none = 0
    case hmacSHA256 = 1
}

extension HelloProof {
    /// Reads `u8 authMethod` and, for method 1, the method's prefix fields, nonce and proof.
    static func readOptional(
        from buffer: inout ByteBuffer,
        nonceByteCount: Int,
        readPrefix: (inout ByteBuffer) throws(WireError) -> UInt64
    ) throws(WireError) -> HelloProof? {
        let rawMethod: UInt8 = try buffer.readWire()
        guard let method = AuthMethod(rawValue: rawMethod) else { throw .invalidValue("authMethod") }
        guard method == .hmacSHA256 else { return nil }
        let prefix = try readPrefix(&buffer)
        let nonce = try buffer.readLengthPrefixedBytes("auth.nonce", maxBytes: nonceByteCount)
        let proof = try buffer.readLengthPrefixedBytes("auth.proof", maxBytes: proofByteCount)
        guard nonce.count == nonceByteCount else { throw .invalidValue("auth.nonce") }
        guard proof.count == proofByteCount else { throw .invalidValue("auth.proof") }
        return HelloProof(timestampMilliseconds: prefix, nonce: nonce, proof: proof)
    }
}
