import FoyerWire
import NIOCore
import Testing

@Suite("Handshake and control bodies")
struct HandshakeMessageTests {
    static let proof = HelloProof(
        timestampMilliseconds: 1_700_000_000_000,
        nonce: Array(repeating: 7, count: 32),
        proof: Array(repeating: 9, count: 32)
    )

    @Test("HELLO round-trips with and without a proof")
    func helloRoundTrip() throws {
        for proof in [nil, Self.proof] {
            let hello = Hello(
                frameLengthMax: 1 << 20,
                maxInFlight: 64,
                compression: .lz4,
                peerName: "gateway",
                service: "identity",
                proof: proof
            )
            #expect(try Hello(decoding: hello.encoded()) == hello)
        }
    }

    @Test("HELLO_ACK round-trips with and without a proof, and with and without features (1.1)")
    func helloAckRoundTrip() throws {
        var serverProof = Self.proof
        serverProof.timestampMilliseconds = 0
        for proof in [nil, serverProof] {
            for features in [nil, HelloFeatures.traceContext, HelloFeatures(rawValue: 0x81)] {
                let ack = HelloAck(
                    frameLengthMax: 1 << 20,
                    maxInFlight: 64,
                    compression: [],
                    compressionThreshold: 512,
                    idleTimeoutMilliseconds: 300_000,
                    serverName: "identity",
                    proof: proof,
                    features: features
                )
                #expect(try HelloAck(decoding: ack.encoded()) == ack)
                // The features byte is the body's last: a 1.0 ack is the 1.1 one without it.
                var old = ack
                old.features = nil
                let length = old.encoded().readableBytes + (features == nil ? 0 : 1)
                #expect(ack.encoded().readableBytes == length)
            }
        }
    }

    @Test("a HELLO_ACK with a features byte and anything after it is refused")
    func ackFeaturesThenTrailingBytes() {
        var body = HelloAck(
            frameLengthMax: 1 << 20,
            maxInFlight: 64,
            compression: [],
            compressionThreshold: 512,
            idleTimeoutMilliseconds: 300_000,
            serverName: "identity",
            features: .traceContext
        ).encoded()
        body.writeInteger(UInt8(0))
        #expect(throws: WireError.trailingBytes) { try HelloAck(decoding: body) }
    }

    @Test("every truncation of a HELLO is refused, never a crash")
    func helloTruncations() {
        let body = Hello(
            frameLengthMax: 1 << 20,
            maxInFlight: 64,
            compression: .lz4,
            peerName: "p",
            service: "s",
            proof: Self.proof
        ).encoded()
        for length in 0..<body.readableBytes {
            #expect(throws: WireError.self) { try Hello(decoding: body.getSlice(at: 0, length: length)!) }
        }
    }

    @Test("HELLO with an unknown auth method, a short nonce, zero in-flight or a tiny frame limit is refused")
    func helloInvalidValues() {
        var unknownMethod = ByteBuffer()
        unknownMethod.writeMultipleIntegers(UInt32(1 << 20), UInt16(1), UInt8(0))
        unknownMethod.writeLengthPrefixedString("p")
        unknownMethod.writeLengthPrefixedString("s")
        unknownMethod.writeInteger(UInt8(9))
        #expect(throws: WireError.invalidValue) { try Hello(decoding: unknownMethod) }

        var shortNonce = Self.proof
        shortNonce.nonce = [1, 2, 3]
        let withShortNonce = Hello(
            frameLengthMax: 1 << 20,
            maxInFlight: 1,
            compression: [],
            peerName: "",
            service: "",
            proof: shortNonce
        )
        #expect(throws: WireError.invalidValue) { try Hello(decoding: withShortNonce.encoded()) }

        let zeroInFlight = Hello(frameLengthMax: 1 << 20, maxInFlight: 0, compression: [], peerName: "", service: "")
        #expect(throws: WireError.invalidValue) { try Hello(decoding: zeroInFlight.encoded()) }

        let tinyLimit = Hello(frameLengthMax: 4, maxInFlight: 1, compression: [], peerName: "", service: "")
        #expect(throws: WireError.invalidValue) { try Hello(decoding: tinyLimit.encoded()) }
    }

    @Test("HELLO_ACK may choose one compression algorithm at most")
    func ackChoosesOneAlgorithm() {
        let ack = HelloAck(
            frameLengthMax: 1 << 20,
            maxInFlight: 1,
            compression: CompressionAlgorithms(rawValue: 3),
            compressionThreshold: 0,
            idleTimeoutMilliseconds: 0,
            serverName: ""
        )
        #expect(throws: WireError.invalidValue) { try HelloAck(decoding: ack.encoded()) }
    }

    @Test("ERROR and GOAWAY bodies round-trip and cap their message")
    func errorAndGoAwayBodies() throws {
        let error = ErrorBody(message: "nope", details: ByteBuffer(bytes: [1, 2, 3]))
        #expect(try ErrorBody(decoding: error.encoded()) == error)
        let long = ErrorBody(message: String(repeating: "x", count: 5000))
        #expect(try ErrorBody(decoding: long.encoded()).message.utf8.count == ErrorBody.messageByteCountMax)
        let goAway = GoAwayBody(message: "bye")
        #expect(try GoAwayBody(decoding: goAway.encoded()) == goAway)
    }

    @Test("the health answer round-trips")
    func healthRoundTrip() throws {
        let health = HealthStatus(service: "identity", state: .draining, uptimeMilliseconds: 42)
        #expect(try HealthStatus(decoding: health.encoded()) == health)
        #expect(throws: WireError.invalidValue) {
            var bad = ByteBuffer()
            bad.writeLengthPrefixedString("x")
            bad.writeInteger(UInt8(7))
            bad.writeInteger(UInt64(0))
            return try HealthStatus(decoding: bad)
        }
    }
}
