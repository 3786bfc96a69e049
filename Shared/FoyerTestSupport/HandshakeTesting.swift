import FoyerCrypto
public import FoyerRPC
public import FoyerWire
import NIOCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Builds handshakes by hand, from the rules in docs/PROTOCOL.md rather than from the runtime's own code, so
/// protocol tests check the documented algorithm.
public enum HandshakeTesting {
    /// A HELLO with a cluster-secret proof: HMAC-SHA-256 over "FOYR-HELLO-1", 0x00 and the body up to the proof.
    public static func signedHello(
        secret: ClusterSecret,
        service: String,
        maxInFlight: UInt16 = 64,
        compression: CompressionAlgorithms = .lz4,
        clockSkewMilliseconds: Int64 = 0
    ) -> Hello {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        let milliseconds = Int64(now.tv_sec) * 1000 + Int64(now.tv_nsec) / 1_000_000 + clockSkewMilliseconds
        var hello = Hello(
            frameLengthMax: 1 << 20,
            maxInFlight: maxInFlight,
            compression: compression,
            peerName: "raw-test-peer",
            service: service,
            proof: HelloProof(
                timestampMilliseconds: UInt64(milliseconds),
                nonce: SecureRandom.bytes(count: 32),
                proof: []
            )
        )
        var signed = ByteBuffer()
        signed.writeBytes(Array("FOYR-HELLO-1".utf8) + [0])
        hello.encodeSignedPart(into: &signed)
        let key = try! Base64URL.decode(secret.text)
        hello.proof!.proof = HMACSHA256.authenticationCode(key: key, message: Array(signed.readableBytesView))
        return hello
    }

    /// A HELLO without a proof, for listeners that ask none.
    public static func plainHello(
        service: String = "",
        maxInFlight: UInt16 = 64,
        compression: CompressionAlgorithms = .lz4
    ) -> Hello {
        Hello(
            frameLengthMax: 1 << 20,
            maxInFlight: maxInFlight,
            compression: compression,
            peerName: "raw-test-peer",
            service: service
        )
    }
}
