import ArgumentParser
import Foundation
import FoyerCrypto
import FoyerIdentity
import FoyerServiceKit
import Logging

/// The options of identity's signing keys: their algorithm, the key-encryption key that seals them at rest, the one
/// it replaces, and the rotation schedule. A flag wins over its environment variable, which wins over the default.
struct SigningKeyOptions: ParsableArguments {
    @Option(
        help: """
            The algorithm of the keys that sign access tokens: ES256, RS256 or EdDSA. Starting with another one than \
            the current key's rotates to a key of this algorithm. (env: FOYER_SIGNING_ALGORITHM; default: ES256)
            """
    )
    var signingAlgorithm: String?

    @Option(
        help: """
            File holding the key-encryption key that seals the signing keys at rest: 32 random bytes in standard \
            base64 with = padding (44 characters), optionally one final newline, as `openssl rand -base64 32` \
            writes. Without it the keys are stored in clear. (env: FOYER_SIGNING_KEY_ENCRYPTION_KEY_FILE; default: none)
            """
    )
    var signingKeyEncryptionKeyFile: String?

    @Option(
        help: """
            The key-encryption key file that sealed the signing keys before --signing-key-encryption-key-file: \
            the keys are re-sealed with the new one at start. (env: FOYER_PREVIOUS_SIGNING_KEY_ENCRYPTION_KEY_FILE; \
            default: none)
            """
    )
    var previousSigningKeyEncryptionKeyFile: String?

    @Option(
        help: """
            Rotate the signing key when the newest one is this many days old (0 to 3650); 0 rotates only on request \
            (`foyer admin rotate-keys`). (env: FOYER_SIGNING_KEY_ROTATION_DAYS; default: 90)
            """
    )
    var signingKeyRotationDays: Int?

    /// Sets the signing-key settings given by flags or environment on `configuration`; reads the key files.
    func apply(to configuration: inout IdentityConfiguration, logger: Logger) throws {
        let settings = SettingsReader()
        let algorithm = Setting<JWSAlgorithm>.choice(
            "--signing-algorithm",
            "FOYER_SIGNING_ALGORITHM",
            of: JWSAlgorithm.allCases.map(\.rawValue)
        )
        if let algorithm = try settings.value(parsing: signingAlgorithm, algorithm) {
            configuration.signingAlgorithm = algorithm
        }
        let current = Setting<String>.text(
            "--signing-key-encryption-key-file",
            "FOYER_SIGNING_KEY_ENCRYPTION_KEY_FILE"
        )
        if let path = try settings.value(signingKeyEncryptionKeyFile, current) {
            configuration.signingKeyEncryptionKey = try Self.load(path, logger: logger)
        }
        let previous = Setting<String>.text(
            "--previous-signing-key-encryption-key-file",
            "FOYER_PREVIOUS_SIGNING_KEY_ENCRYPTION_KEY_FILE"
        )
        if let path = try settings.value(previousSigningKeyEncryptionKeyFile, previous) {
            configuration.previousSigningKeyEncryptionKey = try Self.load(path, logger: logger)
        }
        let days = Setting<Int>.int("--signing-key-rotation-days", "FOYER_SIGNING_KEY_ROTATION_DAYS", in: 0...3650)
        if let days = try settings.value(signingKeyRotationDays, days) {
            configuration.signingKeyRotationInterval = days == 0 ? nil : .seconds(days * 86_400)
        }
    }

    /// Reads a key-encryption key file, warning when others than its owner may read it.
    private static func load(_ path: String, logger: Logger) throws -> SigningKeyEncryptionKey {
        let key = try SigningKeyEncryptionKey.load(path: path)
        let mode = (try? FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int) ?? 0
        if mode & 0o077 != 0 {
            logger.warning(
                "the key-encryption key file is readable by others than its owner; make it 0400 or 0600",
                metadata: ["kek.file": "\(path)", "kek.mode": "\(String(mode, radix: 8))"]
            )
        }
        return key
    }
}
