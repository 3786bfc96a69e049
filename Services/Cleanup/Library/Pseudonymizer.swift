import FoyerCrypto

/// Turns uids and operation ids into keyed hashes (HMAC-SHA-256 under the deployment's key, lowercase hex), so that
/// cleanup's tables and answers never hold a uid, yet the same account always maps to the same id.
///
/// Each kind of input has its own label in the MAC, so a uid and an operation id with the same text hash apart.
struct Pseudonymizer: Sendable {
    private let key: [UInt8]

    init(key: [UInt8]) {
        precondition(key.count >= 32, "pseudonym keys are checked to be at least 32 bytes")
        self.key = key
    }

    /// The pseudonymous id of an account: 64 hex digits.
    func subject(uid: String) -> String {
        hex(HMACSHA256.authenticationCode(key: key, message: Array("foyer.cleanup.uid\u{0}\(uid)".utf8)))
    }

    /// What is stored instead of an operation id (which a client chose and might have filled with anything).
    func operationKey(_ operationID: String) -> String {
        hex(HMACSHA256.authenticationCode(key: key, message: Array("foyer.cleanup.operation\u{0}\(operationID)".utf8)))
    }

    /// The operation id of the inactivity clean-up of `uid`: `ttl-` and 32 hex digits of its pseudonymous id. The
    /// same for every sweep and every replica, so a retry continues the same operation; and without the uid, which
    /// identity keeps in its finished-operations table for good.
    func ttlOperationID(uid: String) -> String {
        Self.ttlPrefix + subject(uid: uid).prefix(32)
    }

    static let ttlPrefix = "ttl-"

    private func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count * 2)
        for byte in bytes {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: out, as: UTF8.self)
    }
}
