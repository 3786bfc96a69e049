import Foundation
import FoyerAPI
import FoyerCrypto
import FoyerRPC
import Synchronization

/// Runs scrypt off the async executor, a bounded number at a time.
///
/// Each derivation at the default cost takes about 128 MiB and 0.3 s of one core, so at most
/// `hashConcurrencyMax` run at once (on dispatch threads, leaving the cooperative pool free); up to
/// `hashQueueMax` more wait; beyond that calls fail at once with `password-hashing-busy` (not processed, safe to
/// retry) instead of piling up memory.
final class PasswordHasher: Sendable {
    private let parameters: ScryptParameters
    private let slots: AsyncSemaphore
    private let admitted = Atomic<Int>(0)
    private let admittedMax: Int
    private let statistics: IdentityStatistics
    /// What an unknown email is checked against, so it costs what a known one does.
    private let dummy: PasswordHash

    init(policy: PasswordPolicy, statistics: IdentityStatistics) {
        self.parameters = policy.scrypt
        self.slots = AsyncSemaphore(permits: max(1, policy.hashConcurrencyMax))
        self.admittedMax = max(1, policy.hashConcurrencyMax) + max(0, policy.hashQueueMax)
        self.statistics = statistics
        self.dummy = PasswordHash(
            logN: policy.scrypt.logN,
            r: policy.scrypt.r,
            p: policy.scrypt.p,
            salt: SecureRandom.bytes(count: PasswordHash.saltByteCount),
            hash: SecureRandom.bytes(count: PasswordHash.hashByteCount)
        )
    }

    /// A new hash of `password` with the configured parameters and a fresh salt.
    func hash(_ password: String) async throws -> PasswordHash {
        let salt = SecureRandom.bytes(count: PasswordHash.saltByteCount)
        let derived = try await derive(password, salt: salt, parameters: parameters)
        return PasswordHash(logN: parameters.logN, r: parameters.r, p: parameters.p, salt: salt, hash: derived)
    }

    /// Whether `password` matches `stored` (constant-time comparison). With `stored` nil, derives against a dummy
    /// hash anyway and answers false, so that a missing account takes as long as a wrong password.
    func verify(_ password: String, against stored: PasswordHash?) async throws -> Bool {
        let target = stored ?? dummy
        let derived = try await derive(
            password,
            salt: target.salt,
            parameters: target.parameters(ceiling: parameters.maxMemoryBytes)
        )
        return ConstantTime.equals(derived, target.hash) && stored != nil
    }

    /// Whether a stored hash should be replaced at the next successful sign-in.
    func needsRehash(_ stored: PasswordHash) -> Bool {
        stored.isWeaker(than: parameters)
    }

    private func derive(_ password: String, salt: [UInt8], parameters: ScryptParameters) async throws -> [UInt8] {
        let (_, admittedNow) = admitted.add(1, ordering: .relaxed)
        defer { admitted.subtract(1, ordering: .relaxed) }
        guard admittedNow <= admittedMax else {
            throw RPCError(
                IdentityStatus.passwordHashingBusy,
                "too many password checks in flight; try again shortly",
                retryAfterMilliseconds: 250
            )
        }
        try await slots.acquire()
        defer { slots.release() }
        statistics.passwordHashed()
        let passwordBytes = Array(password.utf8)
        return try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global(qos: .userInitiated).async {
                continuation.resume(
                    with: Result {
                        try Scrypt.deriveKey(
                            password: passwordBytes,
                            salt: salt,
                            parameters: parameters,
                            outputByteCount: PasswordHash.hashByteCount
                        )
                    }
                )
            }
        }
    }
}
