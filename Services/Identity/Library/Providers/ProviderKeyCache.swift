import Foundation
import FoyerAPI
import FoyerCrypto
import FoyerRPC
import FoyerWebhooks

/// A provider's signing keys (its JWKS), fetched from a URL or a file and cached.
///
/// - Fresh keys are used until their lifetime ends (Cache-Control `max-age`, bounded by the settings; the default
///   lifetime when there is none).
/// - A `kid` the cached set lacks triggers a refetch, but fetches are at least `refetchInterval` apart, so
///   forged key ids cannot make identity hammer the provider.
/// - When a fetch fails, keys past their lifetime are used for at most `staleKeysMax` more; with no usable keys
///   the provider fails closed (`provider-unavailable`).
/// - Concurrent callers share one fetch.
actor ProviderKeyCache {
    private struct Cached {
        var keys: [String: JWTVerificationKey]
        var freshUntil: Date
    }

    private let settings: ProviderSettings
    private let http: (any HTTPClient)?
    private let clock: @Sendable () -> Date
    private let statistics: IdentityStatistics
    private var cached: Cached?
    private var lastAttempt: Date?
    private var fetching = false
    private var waiters: [CheckedContinuation<Void, Never>] = []

    /// The largest JWKS accepted.
    static let jwksByteCountMax = 64 << 10

    init(
        settings: ProviderSettings,
        http: (any HTTPClient)?,
        clock: @escaping @Sendable () -> Date,
        statistics: IdentityStatistics
    ) {
        self.settings = settings
        self.http = http
        self.clock = clock
        self.statistics = statistics
    }

    /// The key named `keyID`, or `unknown-key-id`, or `provider-unavailable`.
    func key(id keyID: String) async throws -> JWTVerificationKey {
        if let cached, clock() < cached.freshUntil {
            if let key = cached.keys[keyID] { return key }
            if mayFetch(at: clock()) { await refetch() }
            if let key = self.cached?.keys[keyID] { return key }
            throw IdentityError.unknownKeyID("the provider has no key with the token's kid")
        }
        if mayFetch(at: clock()) { await refetch() }
        let now = clock()
        guard let cached, now < cached.freshUntil.adding(settings.staleKeysMax) else {
            throw IdentityError.providerUnavailable()
        }
        guard let key = cached.keys[keyID] else {
            throw IdentityError.unknownKeyID("the provider has no key with the token's kid")
        }
        return key
    }

    private func mayFetch(at now: Date) -> Bool {
        guard let lastAttempt else { return true }
        return now >= lastAttempt.adding(settings.refetchInterval) || now < lastAttempt
    }

    /// Fetches the keys once, or waits for the fetch already under way.
    private func refetch() async {
        if fetching {
            await withCheckedContinuation { waiters.append($0) }
            return
        }
        fetching = true
        lastAttempt = clock()
        statistics.providerKeysFetched()
        do {
            let (json, lifetime) = try await fetch()
            let keys = try Self.verificationKeys(JWKSet(json: json, maxLength: Self.jwksByteCountMax))
            cached = Cached(keys: keys, freshUntil: clock().adding(lifetime))
        } catch {
            // Keep what we had; `key(id:)` decides whether it is still usable.
        }
        fetching = false
        let waiting = waiters
        waiters = []
        for waiter in waiting { waiter.resume() }
    }

    private func fetch() async throws -> ([UInt8], Duration) {
        switch settings.keys {
        case .file(let path):
            let data = try Data(contentsOf: URL(fileURLWithPath: path))
            guard data.count <= Self.jwksByteCountMax else { throw HTTPClientError("the JWKS file is too large") }
            return (Array(data), settings.cacheLifetimeDefault)
        case .url(let text):
            guard let url = URL(string: text), let http else { throw HTTPClientError("unusable JWKS URL") }
            let response = try await http.get(url, timeout: settings.fetchTimeout, maxBodyBytes: Self.jwksByteCountMax)
            guard response.status == 200 else { throw HTTPClientError("the JWKS URL answered \(response.status)") }
            return (response.body, lifetime(cacheControl: response.headers["cache-control"]))
        }
    }

    /// The cache lifetime from a Cache-Control header: `max-age`, bounded; `no-store`/`no-cache` mean the minimum.
    private func lifetime(cacheControl: String?) -> Duration {
        guard let cacheControl else { return settings.cacheLifetimeDefault }
        var lifetime = settings.cacheLifetimeDefault
        for directive in cacheControl.lowercased().split(separator: ",") {
            let parts = directive.trimmingCharacters(in: .whitespaces).split(separator: "=", maxSplits: 1)
            if parts.first == "no-store" || parts.first == "no-cache" { return settings.cacheLifetimeMin }
            if parts.count == 2, parts[0] == "max-age", let seconds = Int64(parts[1]) {
                lifetime = .seconds(seconds)
            }
        }
        return min(max(lifetime, settings.cacheLifetimeMin), settings.cacheLifetimeMax)
    }

    /// The RS256 and ES256 keys of a set, by `kid`. Other keys (no kid, another type, unusable) are skipped.
    private static func verificationKeys(_ set: JWKSet) throws -> [String: JWTVerificationKey] {
        var keys: [String: JWTVerificationKey] = [:]
        for jwk in set.keys {
            guard let keyID = jwk.kid, keys[keyID] == nil, let key = try? jwk.verificationKey(),
                key.algorithm == .rs256 || key.algorithm == .es256
            else { continue }
            keys[keyID] = key
        }
        return keys
    }
}
