import Foundation

/// How ID tokens of one provider (Apple or Google) are verified.
///
/// Every issuer in `issuers` is an alias of the same provider: identities are keyed by (the first issuer, `sub`),
/// so a token from an alias (Apple briefly used `https://account.apple.com` in 2025) finds the same account.
public struct ProviderSettings: Sendable {
    /// Where the provider's signing keys come from.
    public enum KeySource: Sendable, Equatable {
        /// A JWKS URL, cached per its Cache-Control max-age (bounded by `cacheLifetimeMin`/`Max`).
        case url(String)
        /// A JWKS file, re-read when its cache lifetime ends or a token names an unknown key.
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
    /// Refuse tokens without a nonce. Default false (Google tokens often have none).
    public var requireNonce: Bool = false
    /// Timeout of one key fetch. Default 5 s.
    public var fetchTimeout: Duration = .seconds(5)

    public init(issuers: [String], audiences: [String], keys: KeySource) {
        self.issuers = issuers
        self.audiences = audiences
        self.keys = keys
    }

    /// Sign in with Apple: issuer `https://appleid.apple.com`, keys from `https://appleid.apple.com/auth/keys`.
    /// `audiences` are the app's bundle id and/or services id.
    public static func apple(audiences: [String]) -> ProviderSettings {
        ProviderSettings(
            issuers: ["https://appleid.apple.com"],
            audiences: audiences,
            keys: .url("https://appleid.apple.com/auth/keys")
        )
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
