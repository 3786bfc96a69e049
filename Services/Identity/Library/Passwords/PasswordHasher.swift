import Foundation
import FoyerAPI
import FoyerCrypto
import FoyerRPC
import Synchronization

/// Proof that a request passed the per-source hashing budget (`PasswordHasher.admit`); hashing needs one, so no
/// call reaches scrypt without having been counted. One permit covers the hashes of one request (a check, and the
/// rehash that may follow a right password).
struct HashingPermit: Sendable {
    fileprivate init() {}
}

/// Runs Argon2id or scrypt off the async executor, a bounded number at a time, and only for requests within their
/// source's budget.
///
/// Each derivation at the default cost takes about 19 MiB and 25 ms of one core (a scrypt one 128 MiB and 0.4 s), so
/// at most
/// `hashConcurrencyMax` run at once (on dispatch threads, leaving the cooperative pool free); up to
/// `hashQueueMax` more wait; beyond that calls fail at once with `password-hashing-busy` (not processed, safe to
/// retry) instead of piling up memory. Before any of that, `admit` spends one unit of the client source's budget
/// (`perSourceHashBurst`, refilled at `perSourceHashesPerMinute`), so one host cannot fill the queue and starve
/// everyone else's sign-ins: it gets `too-many-attempts` with the wait instead.
final class PasswordHasher: Sendable {
    private let policy: PasswordPolicy
    private let budget: SourceBudget
    private let slots: AsyncSemaphore
    private let admitted = Atomic<Int>(0)
    private let admittedMax: Int
    private let statistics: IdentityStatistics
    /// What an unknown email is checked against, so it costs what a known one does.
    private let dummy: PasswordHash

    init(policy: PasswordPolicy, statistics: IdentityStatistics) {
        self.policy = policy
        self.slots = AsyncSemaphore(permits: max(1, policy.hashConcurrencyMax))
        self.admittedMax = max(1, policy.hashConcurrencyMax) + max(0, policy.hashQueueMax)
        self.budget = SourceBudget(
            burst: policy.perSourceHashBurst,
            refillInterval: .seconds(60) / max(1, policy.perSourceHashesPerMinute),
            sourcesMax: policy.hashBudgetSourcesMax
        )
        self.statistics = statistics
        self.dummy = PasswordHash(
            cost: Self.cost(of: policy),
            salt: SecureRandom.bytes(count: PasswordHash.saltByteCount),
            hash: SecureRandom.bytes(count: PasswordHash.hashByteCount)
        )
    }

    /// Spends one unit of `source`'s hashing budget, or throws `too-many-attempts` with the time until the next
    /// unit. Internal callers (no source) are not budgeted; the pool's own cap still holds for them.
    func admit(_ source: ClientSource, now: Date) throws -> HashingPermit {
        guard let key = source.key, let wait = budget.spend(key, now: now) else { return HashingPermit() }
        throw IdentityError.tooManyAttempts(
            retryAfter: wait,
            "too many password attempts from this network address; try again later"
        )
    }

    /// A new hash of `password` with the configured algorithm and cost, and a fresh salt.
    func hash(_ password: String, permit: HashingPermit) async throws -> PasswordHash {
        let salt = SecureRandom.bytes(count: PasswordHash.saltByteCount)
        let cost = Self.cost(of: policy)
        return PasswordHash(cost: cost, salt: salt, hash: try await derive(password, salt: salt, cost: cost))
    }

    /// Whether `password` matches `stored` (constant-time comparison). With `stored` nil, derives against a dummy
    /// hash anyway and answers false, so that a missing account takes as long as a wrong password.
    func verify(_ password: String, against stored: PasswordHash?, permit: HashingPermit) async throws -> Bool {
        let target = stored ?? dummy
        let derived = try await derive(password, salt: target.salt, cost: target.cost)
        return ConstantTime.equals(derived, target.hash) && stored != nil
    }

    /// Whether a stored hash should be replaced at the next successful sign-in.
    func needsRehash(_ stored: PasswordHash) -> Bool {
        stored.isWeaker(than: policy)
    }

    /// What new hashes are made with.
    private static func cost(of policy: PasswordPolicy) -> PasswordHash.Cost {
        switch policy.algorithm {
        case .argon2id: .argon2id(policy.argon2)
        case .scrypt: .scrypt(logN: policy.scrypt.logN, r: policy.scrypt.r, p: policy.scrypt.p)
        }
    }

    private func derive(_ password: String, salt: [UInt8], cost: PasswordHash.Cost) async throws -> [UInt8] {
        let (_, admittedNow) = admitted.add(1, ordering: .relaxed)
        defer { admitted.subtract(1, ordering: .relaxed) }
        guard admittedNow <= admittedMax else {
            throw IdentityError.passwordHashingBusy()
        }
        try await slots.acquire()
        defer { slots.release() }
        statistics.passwordHashed()
        let passwordBytes = Array(password.utf8)
        return try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global(qos: .userInitiated).async {
                continuation.resume(
                    with: Result { try self.deriveNow(passwordBytes, salt: salt, cost: cost) }
                )
            }
        }
    }

    /// The derivation itself, on the calling thread. A stored scrypt cost gets a memory ceiling that fits it (at
    /// least the configured one), so hashes made under a higher cost still verify.
    private func deriveNow(_ password: [UInt8], salt: [UInt8], cost: PasswordHash.Cost) throws -> [UInt8] {
        switch cost {
        case .argon2id(let parameters):
            return try Argon2id.deriveKey(
                password: password,
                salt: salt,
                parameters: parameters,
                outputByteCount: PasswordHash.hashByteCount
            )
        case .scrypt(let logN, let r, let p):
            var parameters = ScryptParameters(logN: logN, r: r, p: p, maxMemoryBytes: policy.scrypt.maxMemoryBytes)
            if let required = parameters.requiredMemoryBytes, required > UInt64(parameters.maxMemoryBytes) {
                parameters.maxMemoryBytes = Int(clamping: required + (1 << 20))
            }
            return try Scrypt.deriveKey(
                password: password,
                salt: salt,
                parameters: parameters,
                outputByteCount: PasswordHash.hashByteCount
            )
        }
    }
}
