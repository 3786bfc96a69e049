/// The algorithm identity hashes new passwords with (`PasswordPolicy.algorithm`). Hashes of the other are still
/// verified, and replaced at the owner's next successful sign-in.
public enum PasswordAlgorithm: String, Sendable, CaseIterable {
    /// Argon2id at `PasswordPolicy.argon2` (the default): OWASP's first choice, about 18 times the hashes a
    /// second of scrypt at equal strength on one core, at a sixth of the memory (docs/DECISIONS.md).
    case argon2id
    /// scrypt at `PasswordPolicy.scrypt`: what identity wrote before Argon2id.
    case scrypt
}
