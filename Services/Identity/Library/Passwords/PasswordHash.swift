import FoyerCrypto

/// A stored password hash in a PHC-style string that carries its parameters and salt:
/// `$scrypt$ln=17,r=8,p=1$<salt>$<hash>` (salt and hash in unpadded base64url; 16-byte salt, 32-byte hash).
struct PasswordHash: Sendable, Equatable {
    static let saltByteCount = 16
    static let hashByteCount = 32

    var logN: UInt8
    var r: UInt32
    var p: UInt32
    var salt: [UInt8]
    var hash: [UInt8]

    var text: String {
        "$scrypt$ln=\(logN),r=\(r),p=\(p)$\(Base64URL.encode(salt))$\(Base64URL.encode(hash))"
    }

    init(logN: UInt8, r: UInt32, p: UInt32, salt: [UInt8], hash: [UInt8]) {
        self.logN = logN
        self.r = r
        self.p = p
        self.salt = salt
        self.hash = hash
    }

    /// Parses the stored form; nil if it is not one this code wrote.
    init?(text: String) {
        let fields = text.split(separator: "$", omittingEmptySubsequences: false)
        guard fields.count == 5, fields[0].isEmpty, fields[1] == "scrypt" else { return nil }
        var values: [Substring: Substring] = [:]
        for pair in fields[2].split(separator: ",") {
            let parts = pair.split(separator: "=", maxSplits: 1)
            guard parts.count == 2 else { return nil }
            values[parts[0]] = parts[1]
        }
        guard let logN = values["ln"].flatMap({ UInt8($0) }), let r = values["r"].flatMap({ UInt32($0) }),
            let p = values["p"].flatMap({ UInt32($0) }),
            let salt = try? Base64URL.decode(fields[3], maxEncodedLength: 64),
            let hash = try? Base64URL.decode(fields[4], maxEncodedLength: 64), hash.count == Self.hashByteCount
        else { return nil }
        self.init(logN: logN, r: r, p: p, salt: salt, hash: hash)
    }

    /// The parameters to derive with: the stored cost, and a memory ceiling that fits it (at least the configured
    /// one).
    func parameters(ceiling: Int) -> ScryptParameters {
        var parameters = ScryptParameters(logN: logN, r: r, p: p, maxMemoryBytes: ceiling)
        if let required = parameters.requiredMemoryBytes, required > UInt64(ceiling) {
            parameters.maxMemoryBytes = Int(clamping: required + (1 << 20))
        }
        return parameters
    }

    /// Whether the policy asks for more than this hash was made with.
    func isWeaker(than policy: ScryptParameters) -> Bool {
        logN < policy.logN || r < policy.r || p < policy.p
    }
}
