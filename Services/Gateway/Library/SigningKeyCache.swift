import Foundation
import FoyerAPI
import FoyerCrypto
import FoyerRPC
import FoyerWire
import Logging
import Synchronization

/// Identity's public signing keys, fetched once and refetched when a token names a key not seen yet (at most
/// once per interval, so a stream of forged key ids cannot turn into a stream of calls to identity).
///
/// The set served to clients (`jwks`) is reused for `publishedSetLifetime`, and concurrent fetches share one call
/// (single flight): anyone may ask for it without a token, so asking must not cost identity anything per request.
final class SigningKeyCache: Sendable {
    private struct State {
        var keys: JWKSet?
        var fetchedAt: Date?
    }

    private let identity: RPCClient
    private let refetchInterval: TimeInterval
    private let publishedSetLifetime: TimeInterval
    private let state = Mutex(State())
    private let fetches = SingleFlight<Int, JWKSet>()
    private let logger: Logger

    init(identity: RPCClient, refetchInterval: Duration, publishedSetLifetime: Duration, logger: Logger) {
        self.identity = identity
        self.refetchInterval = Double(refetchInterval.components.seconds)
        self.publishedSetLifetime = Double(publishedSetLifetime.components.seconds)
        self.logger = logger
    }

    /// The key named `keyID`, refetching the set if it is unknown and the last fetch is old enough.
    func key(id keyID: String, now: Date) async throws -> JWTVerificationKey? {
        let (cached, fetchedAt) = state.withLock { ($0.keys, $0.fetchedAt) }
        if let cached, let key = try? cached.verificationKey(id: keyID) { return key }
        if let fetchedAt, now.timeIntervalSince(fetchedAt) < refetchInterval, cached != nil { return nil }
        let fresh = try await fetch(now: now, unlessYoungerThan: refetchInterval)
        return try? fresh.verificationKey(id: keyID)
    }

    /// The published key set as JSON (the gateway's `jwks` method): the cached set while it is younger than
    /// `publishedSetLifetime`, else fetched again; if identity cannot be reached, the last set fetched.
    func jwksJSON(now: Date) async throws -> [UInt8] {
        let (cached, fetchedAt) = state.withLock { ($0.keys, $0.fetchedAt) }
        if let cached, let fetchedAt, now.timeIntervalSince(fetchedAt) < publishedSetLifetime {
            return try cached.jsonBytes()
        }
        do {
            return try await fetch(now: now, unlessYoungerThan: publishedSetLifetime).jsonBytes()
        } catch {
            guard let cached else { throw error }
            return try cached.jsonBytes()
        }
    }

    /// Fetches the set from identity; callers arriving during a fetch share its answer, and a caller that decided
    /// to fetch just as another fetch finished takes that one's set if it is younger than `age`.
    private func fetch(now: Date, unlessYoungerThan age: TimeInterval) async throws -> JWKSet {
        try await fetches.run(0) {
            let (cached, fetchedAt) = state.withLock { ($0.keys, $0.fetchedAt) }
            if let cached, let fetchedAt, now.timeIntervalSince(fetchedAt) < age { return cached }
            let response = try await identity.call(IdentityMethods.getJWKS, Empty())
            let keys: JWKSet
            do {
                keys = try JWKSet(json: response.json)
            } catch {
                throw RPCError(.internal, "identity published an unreadable key set")
            }
            state.withLock {
                $0.keys = keys
                $0.fetchedAt = now
            }
            logger.debug("signing keys fetched", metadata: ["keys.count": "\(keys.keys.count)"])
            return keys
        }
    }
}
