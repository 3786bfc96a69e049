import Foundation
import FoyerAPI
import FoyerCrypto
import FoyerRPC
import FoyerWire
import Logging
import Synchronization

/// Identity's public signing keys, fetched once and refetched when a token names a key not seen yet (at most
/// once per interval, so a stream of forged key ids cannot turn into a stream of calls to identity).
final class SigningKeyCache: Sendable {
    private struct State {
        var keys: JWKSet?
        var fetchedAt: Date?
    }

    private let identity: RPCClient
    private let refetchInterval: TimeInterval
    private let state = Mutex(State())
    private let logger: Logger

    init(identity: RPCClient, refetchInterval: Duration, logger: Logger) {
        self.identity = identity
        self.refetchInterval = Double(refetchInterval.components.seconds)
        self.logger = logger
    }

    /// The key named `keyID`, refetching the set if it is unknown and the last fetch is old enough.
    func key(id keyID: String, now: Date) async throws -> JWTVerificationKey? {
        let (cached, fetchedAt) = state.withLock { ($0.keys, $0.fetchedAt) }
        if let cached, let key = try? cached.verificationKey(id: keyID) { return key }
        if let fetchedAt, now.timeIntervalSince(fetchedAt) < refetchInterval, cached != nil { return nil }
        let fresh = try await fetch(now: now)
        return try? fresh.verificationKey(id: keyID)
    }

    /// The published key set as JSON (the gateway's `jwks` method), fetched afresh so a rotation shows at once;
    /// if identity cannot be reached, the last set fetched.
    func jwksJSON(now: Date) async throws -> [UInt8] {
        do {
            return try await fetch(now: now).jsonBytes()
        } catch {
            guard let cached = state.withLock({ $0.keys }) else { throw error }
            return try cached.jsonBytes()
        }
    }

    private func fetch(now: Date) async throws -> JWKSet {
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
