import Crypto
import Foundation
import FoyerWire
import NIOConcurrencyHelpers
import NIOCore

/// Makes and checks the cluster-secret proofs of the handshake (docs/PROTOCOL.md, "Authentication").
///
/// The client proves itself with an HMAC over its HELLO, including a wall-clock timestamp and a random
/// nonce. The server accepts a timestamp within `allowedSkew` of its own clock and a nonce it has not seen
/// within that window, so a recorded HELLO cannot be replayed to this server. The server answers with an
/// HMAC over the client's nonce and its HELLO_ACK, so the client knows it reached a member of the cluster.
///
/// HMAC-SHA256 and its constant-time check come from swift-crypto, the nonces from the standard library's
/// CSPRNG, so the client side builds on every platform (no system C library).
final class HandshakeAuthenticator: Sendable {
    private let key: SymmetricKey
    private let allowedSkewMilliseconds: UInt64
    private let replayCacheCapacity: Int
    private let wallClockMilliseconds: @Sendable () -> UInt64
    private let seenNonces: NIOLockedValueBox<ReplayCache>

    init(
        secret: ClusterSecret,
        allowedSkew: Duration = .seconds(30),
        replayCacheCapacity: Int = 100_000,
        wallClockMilliseconds: @escaping @Sendable () -> UInt64 = HandshakeAuthenticator.systemWallClockMilliseconds
    ) {
        self.key = SymmetricKey(data: secret.bytes)
        let (seconds, attoseconds) = allowedSkew.components
        self.allowedSkewMilliseconds =
            UInt64(max(seconds, 0)) * 1000 + UInt64(max(attoseconds, 0) / 1_000_000_000_000_000)
        self.replayCacheCapacity = replayCacheCapacity
        self.wallClockMilliseconds = wallClockMilliseconds
        self.seenNonces = NIOLockedValueBox(ReplayCache())
    }

    static func systemWallClockMilliseconds() -> UInt64 {
        UInt64(max(Date().timeIntervalSince1970 * 1000, 0))
    }

    /// `count` bytes from the system's CSPRNG (`SystemRandomNumberGenerator`).
    static func randomBytes(count: Int) -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        return (0..<count).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
    }

    // MARK: Client side

    /// Fills in `hello.proof` with a fresh nonce, the current time and the HMAC.
    func sign(_ hello: inout Hello) {
        hello.proof = HelloProof(
            timestampMilliseconds: wallClockMilliseconds(),
            nonce: Self.randomBytes(count: HelloProof.nonceByteCount),
            proof: []
        )
        hello.proof!.proof = mac(context: Hello.signatureContext, extra: []) { hello.encodeSignedPart(into: &$0) }
    }

    /// Whether the server's HELLO_ACK carries a valid proof for our nonce.
    func verify(_ ack: HelloAck, clientNonce: [UInt8]) -> Bool {
        guard let proof = ack.proof else { return false }
        return isValid(proof.proof, context: HelloAck.signatureContext, extra: clientNonce) {
            ack.encodeSignedPart(into: &$0)
        }
    }

    // MARK: Server side

    enum Verdict: Equatable {
        case accepted
        case rejected(String)
    }

    /// Checks a client's HELLO: proof present, timestamp within the skew, nonce unseen, HMAC valid.
    func verify(_ hello: Hello) -> Verdict {
        guard let proof = hello.proof else { return .rejected("a cluster-secret proof is required") }
        let now = wallClockMilliseconds()
        let distance =
            now > proof.timestampMilliseconds
            ? now - proof.timestampMilliseconds : proof.timestampMilliseconds - now
        guard distance <= allowedSkewMilliseconds else {
            return .rejected("handshake timestamp outside the allowed skew")
        }
        let valid = isValid(proof.proof, context: Hello.signatureContext, extra: []) {
            hello.encodeSignedPart(into: &$0)
        }
        guard valid else {
            return .rejected("cluster-secret proof does not verify")
        }
        // Remember the nonce only once the proof is valid, so nobody without the secret can fill the cache.
        let expiry = now + 2 * allowedSkewMilliseconds
        let fresh = seenNonces.withLockedValue { cache in
            cache.insert(proof.nonce, expiry: expiry, now: now, capacity: replayCacheCapacity)
        }
        switch fresh {
        case .inserted: return .accepted
        case .replayed: return .rejected("handshake nonce was already used")
        case .full: return .rejected("too many handshakes in the replay window; try again shortly")
        }
    }

    /// Fills in `ack.proof` with a fresh nonce and the HMAC over the client's nonce and the ack.
    func sign(_ ack: inout HelloAck, clientNonce: [UInt8]) {
        ack.proof = HelloProof(
            timestampMilliseconds: 0,
            nonce: Self.randomBytes(count: HelloProof.nonceByteCount),
            proof: []
        )
        ack.proof!.proof = mac(context: HelloAck.signatureContext, extra: clientNonce) {
            ack.encodeSignedPart(into: &$0)
        }
    }

    private func mac(context: [UInt8], extra: [UInt8], signedPart: (inout ByteBuffer) -> Void) -> [UInt8] {
        let message = Self.message(context: context, extra: extra, signedPart: signedPart)
        return Array(HMAC<SHA256>.authenticationCode(for: message, using: key))
    }

    /// Whether `proof` is the HMAC of the message, compared in constant time.
    private func isValid(
        _ proof: [UInt8],
        context: [UInt8],
        extra: [UInt8],
        signedPart: (inout ByteBuffer) -> Void
    ) -> Bool {
        let message = Self.message(context: context, extra: extra, signedPart: signedPart)
        return HMAC<SHA256>.isValidAuthenticationCode(proof, authenticating: message, using: key)
    }

    /// What the HMAC covers: the context string, the extra bytes (the client's nonce, for HELLO_ACK), the signed part.
    private static func message(
        context: [UInt8],
        extra: [UInt8],
        signedPart: (inout ByteBuffer) -> Void
    ) -> [UInt8] {
        var message = ByteBuffer()
        message.writeBytes(context)
        message.writeBytes(extra)
        signedPart(&message)
        return Array(message.readableBytesView)
    }
}

/// Nonces seen within the replay window, bounded in size; entries leave when their window has passed.
struct ReplayCache {
    enum Outcome { case inserted, replayed, full }

    private var expiries: [[UInt8]: UInt64] = [:]
    private var order = CircularBuffer<(nonce: [UInt8], expiry: UInt64)>()

    mutating func insert(_ nonce: [UInt8], expiry: UInt64, now: UInt64, capacity: Int) -> Outcome {
        while let oldest = order.first, oldest.expiry <= now {
            order.removeFirst()
            expiries[oldest.nonce] = nil
        }
        if expiries[nonce] != nil { return .replayed }
        guard expiries.count < capacity else { return .full }
        expiries[nonce] = expiry
        order.append((nonce, expiry))
        return .inserted
    }
}
