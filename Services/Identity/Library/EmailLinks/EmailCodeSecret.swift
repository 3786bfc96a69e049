import FoyerAPI
import FoyerCrypto

/// The six-digit code of a sign-in or link email (`EmailCode`), made and checked by identity.
///
/// The database keeps SHA-256 of the code with the row's token hash (`hash(tokenHash:)`), never the code: the row's
/// own hash is a salt, so one table of a million hashes does not read every row's code, and a row's code is checked
/// against that row alone, in constant time. A million candidates is still a small search for whoever reads the
/// database, which is why a code lives ten minutes at most, spends its row on first use and dies after
/// `verifierFailuresMax` wrong guesses.
struct EmailCodeSecret: Sendable, Equatable {
    let text: String

    /// A fresh code, uniform over 000000–999999: 32 random bits, redrawn above the largest multiple of a million
    /// below 2^32 so that no code is likelier than another.
    static func generate() -> EmailCodeSecret {
        let range: UInt32 = 1_000_000
        let limit = UInt32.max - UInt32.max % range
        while true {
            let bytes = SecureRandom.bytes(count: 4)
            let value = bytes.reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
            guard value < limit else { continue }
            let digits = String(value % range)
            return EmailCodeSecret(text: String(repeating: "0", count: EmailCode.digitCount - digits.count) + digits)
        }
    }

    /// What the row keeps: SHA-256 of a label, the row's token hash and the code.
    func hash(tokenHash: [UInt8]) -> [UInt8] {
        SHA256.hash(Array("email-code:".utf8) + tokenHash + Array(text.utf8))
    }

    /// Whether this code is the one whose hash the row with `tokenHash` keeps (a constant-time comparison).
    func matches(_ codeHash: [UInt8], tokenHash: [UInt8]) -> Bool {
        ConstantTime.equals(hash(tokenHash: tokenHash), codeHash)
    }
}
