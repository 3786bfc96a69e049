import Foundation

/// What identity needs to exchange Sign in with Apple authorization codes for refresh tokens and to revoke those
/// tokens when an account is deleted (App Store guideline 5.1.1(v)): the team's client-secret key and where Apple's
/// endpoints are.
///
/// The client secret is an ES256 JWT that identity signs for each call: header `kid` = ``keyID``, claims
/// `iss` = ``teamID``, `iat`, `exp` = `iat` + ``clientSecretLifetime``, `aud` = `https://appleid.apple.com`, `sub` =
/// the app's client id (the audience the ID token was issued for).
public struct AppleRevocationSettings: Sendable {
    /// The Apple developer team id (10 characters), the client secret's `iss`.
    public var teamID: String
    /// The id of the Sign in with Apple key, the client secret's `kid`.
    public var keyID: String
    /// The key's `.p8` file from Apple's developer site: a P-256 private key in PKCS#8 PEM.
    public var keyFile: String
    /// Where `/auth/token` and `/auth/revoke` are. Default `https://appleid.apple.com`; an `http` URL (a stand-in
    /// Apple) needs `IdentityConfiguration.allowTestIdentityProviders`.
    public var endpoint: String = "https://appleid.apple.com"
    /// Timeout of one revocation at Apple (during a deletion). Default 10 s.
    public var requestTimeout: Duration = .seconds(10)
    /// Timeout of one code exchange, which runs inside a sign-in: short, so a slow Apple never makes the caller's
    /// deadline pass on a sign-in that succeeded (the exchange then counts as failed). Default 3 s.
    public var exchangeTimeout: Duration = .seconds(3)
    /// How long a client secret is valid (Apple accepts at most 6 months). Default 5 minutes.
    public var clientSecretLifetime: Duration = .seconds(300)

    public init(teamID: String, keyID: String, keyFile: String) {
        self.teamID = teamID
        self.keyID = keyID
        self.keyFile = keyFile
    }
}
