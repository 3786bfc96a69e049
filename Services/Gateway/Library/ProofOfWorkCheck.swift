import Foundation
import FoyerAPI
import FoyerCrypto
import FoyerRPC
import Synchronization

/// The proof-of-work sign-up check: the gateway hands out challenges it can recognise without remembering them, and
/// admits a sign-up whose nonce makes SHA-256(challenge || nonce) start with the challenge's number of zero bits.
///
/// A challenge (58 bytes) is
/// ```
/// u8  version    1
/// 16  id         random
/// u8  difficulty the leading zero bits asked for
/// u64 expiresAt  Unix milliseconds, big-endian
/// 32  mac        HMAC-SHA-256 of the 26 bytes before it, under the cluster's sign-up challenge key
/// ```
/// so any gateway of the cluster accepts a challenge another issued, a client cannot make or ease one, and checking
/// one costs an HMAC and a hash. A challenge is single use: its id is remembered once spent, with the idempotency
/// key it was spent under (the same key may spend it again: a retried sign-in), until it expires. The memory is per
/// replica, so behind several gateways a challenge can be spent once at each within its lifetime (docs/DECISIONS.md).
final class ProofOfWorkCheck: SignUpCheck {
    static let version: UInt8 = 1
    static let idByteCount = 16
    static let signedByteCount = 1 + idByteCount + 1 + 8
    static let challengeByteCount = signedByteCount + HMACSHA256.byteCount

    private struct Spent {
        var idempotencyKey: String
        var expiresAtMilliseconds: UInt64
    }

    let name = "proof-of-work"
    let settings: ProofOfWorkSettings
    private let key: [UInt8]
    private let spent = Mutex<[[UInt8]: Spent]>([:])

    init(settings: ProofOfWorkSettings, key: [UInt8]) {
        precondition((0...Int(SignUpChallenge.difficultyMax)).contains(settings.difficulty), "difficulty 0-64")
        self.settings = settings
        self.key = key
    }

    func challenge(now: Date) throws -> SignUpChallenge {
        let expiresAt = Self.milliseconds(now) + Self.milliseconds(settings.challengeLifetime)
        return challenge(id: SecureRandom.bytes(count: Self.idByteCount), expiresAtMilliseconds: expiresAt)
    }

    /// A challenge with the given id and expiry (tests make known ones).
    func challenge(id: [UInt8], expiresAtMilliseconds: UInt64) -> SignUpChallenge {
        var bytes: [UInt8] = [Self.version]
        bytes += id
        bytes.append(UInt8(settings.difficulty))
        bytes += ProofOfWork.nonce(expiresAtMilliseconds)
        bytes += HMACSHA256.authenticationCode(key: key, message: bytes)
        return SignUpChallenge(
            challenge: bytes,
            difficulty: UInt8(settings.difficulty),
            expiresAtMilliseconds: expiresAtMilliseconds
        )
    }

    func verify(_ proof: SignUpProof?, idempotencyKey: String, source: String, now: Date) async -> SignUpCheckOutcome {
        guard case .proofOfWork(let challenge, let nonce) = proof else { return .missing }
        return verify(challenge: challenge, nonce: nonce, idempotencyKey: idempotencyKey, now: now)
    }

    func verify(challenge: [UInt8], nonce: [UInt8], idempotencyKey: String, now: Date) -> SignUpCheckOutcome {
        guard challenge.count == Self.challengeByteCount, challenge[0] == Self.version,
            HMACSHA256.isValidAuthenticationCode(
                challenge[Self.signedByteCount...],
                key: key,
                message: challenge[..<Self.signedByteCount]
            )
        else { return .refused("the challenge was not issued by this deployment") }
        let id = Array(challenge[1...Self.idByteCount])
        let difficulty = Int(challenge[Self.idByteCount + 1])
        let expiresAt = challenge[(Self.idByteCount + 2)..<Self.signedByteCount].reduce(UInt64(0)) {
            $0 << 8 | UInt64($1)
        }
        let nowMilliseconds = Self.milliseconds(now)
        guard nowMilliseconds <= expiresAt else { return .refused("the challenge has expired; ask for a new one") }
        guard ProofOfWork.meets(SHA256.hash(challenge + nonce), difficulty: difficulty) else {
            return .refused("the nonce does not solve the challenge")
        }
        return spend(id, idempotencyKey: idempotencyKey, expiresAt: expiresAt, now: nowMilliseconds)
    }

    /// Spent challenges remembered (for tests).
    var spentCount: Int { spent.withLock { $0.count } }

    private func spend(_ id: [UInt8], idempotencyKey: String, expiresAt: UInt64, now: UInt64) -> SignUpCheckOutcome {
        spent.withLock { spent in
            if let earlier = spent[id] {
                return earlier.idempotencyKey == idempotencyKey
                    ? .passed : .refused("the challenge was already used; ask for a new one")
            }
            if spent.count >= settings.spentChallengesMax {
                spent = spent.filter { $0.value.expiresAtMilliseconds >= now }
                guard spent.count < settings.spentChallengesMax else {
                    return .unavailable("too many sign-up challenges in flight; try again shortly")
                }
            }
            spent[id] = Spent(idempotencyKey: idempotencyKey, expiresAtMilliseconds: expiresAt)
            return .passed
        }
    }

    static func milliseconds(_ date: Date) -> UInt64 {
        UInt64(max(0, (date.timeIntervalSince1970 * 1000).rounded(.down)))
    }

    static func milliseconds(_ duration: Duration) -> UInt64 {
        let (seconds, attoseconds) = duration.components
        return UInt64(max(0, seconds)) * 1000 + UInt64(max(0, attoseconds)) / 1_000_000_000_000_000
    }
}
