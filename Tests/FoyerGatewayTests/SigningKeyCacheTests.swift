import Foundation
import FoyerAPI
import FoyerRPC
import FoyerTestSupport
import FoyerWire
import Synchronization
import Testing

@testable import FoyerGateway

@Suite("The key set the gateway publishes costs identity one call per interval")
struct SigningKeyCacheTests {
    /// An identity that only answers `getJWKS`, counting the calls.
    private func withFakeIdentity(
        _ body: @Sendable (RPCClient, @Sendable () -> Int) async throws -> Void
    )
        async throws
    {
        let calls = Atomic<Int>(0)
        var router = RPCRouter()
        router.register(IdentityMethods.getJWKS) { _, _ in
            calls.add(1, ordering: .relaxed)
            return JWKSResponse(json: Array(#"{"keys":[]}"#.utf8))
        }
        try await withRPCServer(testServerConfiguration(service: "identity"), router: router) { _, port in
            try await withTestClient(port: port, service: "identity") { identity in
                try await body(identity) { calls.load(ordering: .relaxed) }
            }
        }
    }

    @Test("Many concurrent requests share one fetch; the set is fetched again only after its lifetime")
    func oneFetchPerInterval() async throws {
        try await withFakeIdentity { identity, calls in
            let cache = SigningKeyCache(
                identity: identity,
                refetchInterval: .seconds(30),
                publishedSetLifetime: .seconds(60),
                logger: TestLogging.logger("foyer.test.gateway.keys")
            )
            let start = Date(timeIntervalSince1970: 1_800_000_000)
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<64 { group.addTask { _ = try await cache.jwksJSON(now: start) } }
                try await group.waitForAll()
            }
            #expect(calls() == 1)
            _ = try await cache.jwksJSON(now: start.addingTimeInterval(59))
            #expect(calls() == 1)
            _ = try await cache.jwksJSON(now: start.addingTimeInterval(61))
            #expect(calls() == 2)
        }
    }
}
