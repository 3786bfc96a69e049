import Foundation

/// How ID tokens of one provider (Apple or Google) are verified.
///
/// Every issuer in `issuers` is an alias of the same provider: identities are keyed by (the first issuer, `sub`),
/// so a token from an alias (Apple briefly used `https://account.apple.com` in 2025) finds the same account.
public struct ProviderSettings: Sendable {
    /// Where the provider's signing keys come from.
    public enum KeySource: Sendable, Equatable {
        /// A JWKS URL, cached per its Cache-Control max-age (bounded by `cacheLifetimeMin`/`Max`). An `http` URL
        /// (keys anyone on the path could replace) is for tests only, like `file`.
        case url(String)
        /// A JWKS file, re-read when its cache lifetime ends or a token names an unknown key. For tests with a
        /// stand-in provider only: refused unless `IdentityConfiguration.allowTestIdentityProviders` is set.
        case file(String)
    }

    /// Accepted `iss` values; the first is the canonical one used to key identities.
    public var issuers: [String]
    /// Accepted `aud` values: the app's client ids (bundle id, services id, OAuth client ids).
    public var audiences: [String]
    public var keys: KeySource
    /// Least time between two fetches of the keys (an unknown `kid` refetches at most this often; a failed fetch is
    /// retried no sooner). Default 60 s.
    public var refetchInterval: Duration = .seconds(60)
    /// Bounds on how long fetched keys are used before a refetch, whatever Cache-Control says; the default
    /// lifetime applies when it says nothing. Defaults: 60 s, 24 h, 1 h.
    public var cacheLifetimeMin: Duration = .seconds(60)
    public var cacheLifetimeMax: Duration = .seconds(86_400)
    public var cacheLifetimeDefault: Duration = .seconds(3600)
    /// When a refetch fails, keys past their lifetime are still used for at most this long; after that the
    /// provider fails closed (`provider-unavailable`). Default 1 h.
    public var staleKeysMax: Duration = .seconds(3600)
    /// Tolerated clock difference for `exp`, `nbf` and `iat`. Default 60 s.
    public var clockSkew: Duration = .seconds(60)
    /// Refuse tokens without a nonce (`nonce-mismatch`). Default false here and for Google (Google's tokens often
    /// have none); true for Apple (`apple(audiences:)`), whose SDKs always let the app set one. A token without a
    /// nonce, where allowed, is accepted once: its `jti` (or, without one, a hash of its signed part) is kept until
    /// it expires, and the token is refused again with `nonce-already-used`.
    public var nonceRequired: Bool = false
    /// Timeout of one key fetch. Default 5 s.
    public var fetchTimeout: Duration = .seconds(5)

    public init(issuers: [String], audiences: [String], keys: KeySource) {
        self.issuers = issuers
        self.audiences = audiences
        self.keys = keys
    }

    /// Sign in with Apple: issuer `https://appleid.apple.com`, keys from `https://appleid.apple.com/auth/keys`, a
    /// nonce required. `audiences` are the app's bundle id and/or services id.
    public static func apple(audiences: [String]) -> ProviderSettings {
        var settings = ProviderSettings(
            issuers: ["https://appleid.apple.com"],
            audiences: audiences,
            keys: .url("https://appleid.apple.com/auth/keys")
        )
        settings.nonceRequired = true
        return settings
    }

    /// Google: issuers `https://accounts.google.com` and `accounts.google.com`, keys from
    /// `https://www.googleapis.com/oauth2/v3/certs`. `audiences` are the app's OAuth client ids.
    public static func google(audiences: [String]) -> ProviderSettings {
        ProviderSettings(
            issuers: ["https://accounts.google.com", "accounts.google.com"],
            audiences: audiences,
            keys: .url("https://www.googleapis.com/oauth2/v3/certs")
        )
    }
}
