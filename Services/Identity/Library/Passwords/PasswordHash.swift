import FoyerCrypto

/// A stored password hash in a PHC-style string that carries its algorithm, parameters and salt (salt and hash in
/// unpadded base64url; 16-byte salt, 32-byte hash):
///
/// - `$argon2id$v=19$m=19456,t=2,p=1$<salt>$<hash>`: Argon2id (RFC 9106, version 0x13), memory in KiB;
/// - `$scrypt$ln=17,r=8,p=1$<salt>$<hash>`: scrypt (RFC 7914), N = 2^ln.
struct PasswordHash: Sendable, Equatable {
    static let saltByteCount = 16
    static let hashByteCount = 32

    /// The algorithm and the cost it was run at.
    enum Cost: Sendable, Equatable {
        case argon2id(Argon2Parameters)
        case scrypt(logN: UInt8, r: UInt32, p: UInt32)
    }

    var cost: Cost
    var salt: [UInt8]
    var hash: [UInt8]

    var text: String {
        let tail = "$\(Base64URL.encode(salt))$\(Base64URL.encode(hash))"
        switch cost {
        case .argon2id(let parameters):
            return "$argon2id$v=19$m=\(parameters.memoryKiB),t=\(parameters.iterations),p=\(parameters.parallelism)"
                + tail
        case .scrypt(let logN, let r, let p):
            return "$scrypt$ln=\(logN),r=\(r),p=\(p)" + tail
        }
    }

    init(cost: Cost, salt: [UInt8], hash: [UInt8]) {
        self.cost = cost
        self.salt = salt
        self.hash = hash
    }

    /// Parses the stored form; nil if it is not one this code wrote.
    init?(text: String) {
        let fields = text.split(separator: "$", omittingEmptySubsequences: false)
        guard fields.count >= 5, fields[0].isEmpty,
            let salt = try? Base64URL.decode(fields[fields.count - 2], maxEncodedLength: 64),
            let hash = try? Base64URL.decode(fields[fields.count - 1], maxEncodedLength: 64),
            hash.count == Self.hashByteCount
        else { return nil }
        switch (fields[1], fields.count) {
        case ("argon2id", 6):
            let values = Self.values(fields[3])
            guard fields[2] == "v=19", let memoryKiB = values["m"].flatMap({ UInt32($0) }),
                let iterations = values["t"].flatMap({ UInt32($0) }), let lanes = values["p"].flatMap({ UInt32($0) })
            else { return nil }
            let parameters = Argon2Parameters(memoryKiB: memoryKiB, iterations: iterations, parallelism: lanes)
            guard (try? parameters.validate()) != nil else { return nil }
            self.init(cost: .argon2id(parameters), salt: salt, hash: hash)
        case ("scrypt", 5):
            let values = Self.values(fields[2])
            guard let logN = values["ln"].flatMap({ UInt8($0) }), let r = values["r"].flatMap({ UInt32($0) }),
                let p = values["p"].flatMap({ UInt32($0) })
            else { return nil }
            self.init(cost: .scrypt(logN: logN, r: r, p: p), salt: salt, hash: hash)
        default:
            return nil
        }
    }

    /// `a=1,b=2` as a dictionary; a pair without `=` leaves the result without it (and the parse fails on it).
    private static func values(_ text: Substring) -> [Substring: Substring] {
        var values: [Substring: Substring] = [:]
        for pair in text.split(separator: ",") {
            let parts = pair.split(separator: "=", maxSplits: 1)
            if parts.count == 2 { values[parts[0]] = parts[1] }
        }
        return values
    }

    /// Whether the policy asks for another algorithm, or for more than this hash was made with.
    func isWeaker(than policy: PasswordPolicy) -> Bool {
        switch (cost, policy.algorithm) {
        case (.argon2id(let stored), .argon2id):
            let wanted = policy.argon2
            return stored.memoryKiB < wanted.memoryKiB || stored.iterations < wanted.iterations
                || stored.parallelism < wanted.parallelism
        case (.scrypt(let logN, let r, let p), .scrypt):
            let wanted = policy.scrypt
            return logN < wanted.logN || r < wanted.r || p < wanted.p
        default:
            return true
        }
    }
}
