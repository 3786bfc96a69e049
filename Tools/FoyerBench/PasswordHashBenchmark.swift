import Dispatch
import Foundation
import FoyerCrypto

/// The two password hashes identity can store, at the costs it uses: scrypt N = 2^17, r = 8, p = 1 (128 MiB) and
/// Argon2id m = 19 MiB, t = 2, p = 1 (OWASP's first choice, of equal strength). Each is timed on one core (hashes one
/// after another on one thread) and on every core (one thread per core), on random 16-byte salts, with the memory
/// one hash allocates.
struct PasswordHashBenchmark {
    struct Row: Codable, Sendable {
        var algorithm: String
        var parameters: String
        var memoryMiB: Double
        var hashesPerSecondOneCore: Double
        var hashesPerSecondAllCores: Double
        var cores: Int
    }

    /// How long each measurement runs at least (each runs at least `minimumHashes` hashes too).
    var seconds: Double
    var minimumHashes = 2

    func run() -> [Row] {
        let scrypt = ScryptParameters.interactive
        let argon2 = Argon2Parameters.interactive
        return [
            measure(
                algorithm: "scrypt",
                parameters: "N=2^\(scrypt.logN) r=\(scrypt.r) p=\(scrypt.p)",
                memoryMiB: Double(scrypt.requiredMemoryBytes ?? 0) / 1_048_576
            ) { password, salt in
                _ = try! Scrypt.deriveKey(password: password, salt: salt, parameters: scrypt)
            },
            measure(
                algorithm: "argon2id",
                parameters: "m=\(argon2.memoryKiB / 1024) MiB t=\(argon2.iterations) p=\(argon2.parallelism)",
                memoryMiB: Double(argon2.memoryBytes) / 1_048_576
            ) { password, salt in
                _ = try! Argon2id.deriveKey(password: password, salt: salt, parameters: argon2)
            },
        ]
    }

    private func measure(
        algorithm: String,
        parameters: String,
        memoryMiB: Double,
        hash: @escaping @Sendable (_ password: [UInt8], _ salt: [UInt8]) -> Void
    ) -> Row {
        let cores = max(1, ProcessInfo.processInfo.activeProcessorCount)
        return Row(
            algorithm: algorithm,
            parameters: parameters,
            memoryMiB: memoryMiB,
            hashesPerSecondOneCore: rate(threads: 1, hash),
            hashesPerSecondAllCores: rate(threads: cores, hash),
            cores: cores
        )
    }

    /// Hashes a second, with `threads` threads hashing side by side until `seconds` have passed.
    private func rate(threads: Int, _ hash: @escaping @Sendable ([UInt8], [UInt8]) -> Void) -> Double {
        let password = Array("correct horse battery staple".utf8)
        let start = DispatchTime.now().uptimeNanoseconds
        let deadline = start + UInt64(seconds * 1e9)
        let counts = (0..<threads).map { _ in Counter() }
        DispatchQueue.concurrentPerform(iterations: threads) { thread in
            var done = 0
            while done < minimumHashes || DispatchTime.now().uptimeNanoseconds < deadline {
                hash(password, SecureRandom.bytes(count: 16))
                done += 1
            }
            counts[thread].value = done
        }
        let elapsed = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        return Double(counts.reduce(0) { $0 + $1.value }) / elapsed
    }

    /// One thread's count, written by that thread only and read after every thread has finished.
    private final class Counter: @unchecked Sendable {
        var value = 0
    }
}
