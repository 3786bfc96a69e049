import Crypto
import Foundation
import FoyerCrypto

/// Signs the client secrets of Sign in with Apple's token and revoke endpoints: ES256 JWTs with the team's P-256
/// key (the `.p8` file, PKCS#8 PEM).
///
/// ```
/// header  {"alg":"ES256","kid":<key id>,"typ":"JWT"}
/// claims  {"iss":<team id>,"iat":now,"exp":now + lifetime,"aud":"https://appleid.apple.com","sub":<client id>}
/// ```
struct AppleClientSecret: Sendable {
    /// The `aud` Apple requires.
    static let audience = "https://appleid.apple.com"
    /// The largest key file read.
    static let keyFileByteCountMax = 16 << 10

    private let key: P256.Signing.PrivateKey
    private let teamID: String
    private let keyID: String
    private let lifetime: Duration

    private struct Header: Encodable {
        var alg = "ES256"
        var kid: String
        var typ = "JWT"
    }

    private struct Claims: Encodable {
        var iss: String
        var iat: Int64
        var exp: Int64
        var aud: String
        var sub: String
    }

    /// Reads the key file named by `settings`.
    ///
    /// - Throws: ``IdentityConfigurationError`` when the file cannot be read or holds no P-256 private key.
    init(settings: AppleRevocationSettings) throws {
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: settings.keyFile))
        } catch {
            throw IdentityConfigurationError(
                "cannot read the Sign in with Apple key file \(settings.keyFile): \(error)"
            )
        }
        guard data.count <= Self.keyFileByteCountMax else {
            throw IdentityConfigurationError("the Sign in with Apple key file \(settings.keyFile) is too large")
        }
        do {
            key = try P256.Signing.PrivateKey(pemRepresentation: String(decoding: data, as: UTF8.self))
        } catch {
            throw IdentityConfigurationError(
                "the Sign in with Apple key file \(settings.keyFile) holds no P-256 private key in PKCS#8 PEM (a .p8 file)"
            )
        }
        teamID = settings.teamID
        keyID = settings.keyID
        lifetime = settings.clientSecretLifetime
    }

    /// A client secret for `clientID`, valid from `now` for the configured lifetime.
    func make(clientID: String, now: Date) throws -> String {
        let issuedAt = Int64(now.timeIntervalSince1970.rounded(.down))
        let claims = Claims(
            iss: teamID,
            iat: issuedAt,
            exp: issuedAt + lifetime.components.seconds,
            aud: Self.audience,
            sub: clientID
        )
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let signingInput =
            Base64URL.encode(Array(try encoder.encode(Header(kid: keyID)))) + "."
            + Base64URL.encode(Array(try encoder.encode(claims)))
        let signature = try key.signature(for: Data(signingInput.utf8))
        return signingInput + "." + Base64URL.encode(Array(signature.rawRepresentation))
    }
}
