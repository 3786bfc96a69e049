import Foundation
import FoyerAPI
import FoyerCrypto
import FoyerIdentity
import FoyerRPC
import FoyerTestSupport
import FoyerWire
import Testing

@Suite("Provider keys: fetching, caching, failing closed")
struct ProviderKeyTests {
    /// The tokens of these tests have no nonce (they are about keys), which Apple requires by default.
    private static let withoutNonces: @Sendable (inout IdentityConfiguration) -> Void = {
        $0.apple?.nonceRequired = false
    }

    private func jwks(_ provider: TestIdentityProvider, only keyIDs: [String]) throws -> [UInt8] {
        try JWKSet(keys: provider.jwks.keys.filter { keyIDs.contains($0.kid ?? "") }).jsonBytes()
    }

    @Test(
        "Keys are fetched once and cached for their max-age; an unknown kid refetches at most once per interval",
        arguments: [TestEngine.sqlite]
    )
    func caching(engine: TestEngine) async throws {
        let provider = try await TestIdentityProvider.generate([("apple-1", "RS256"), ("apple-2", "RS256")])
        let endpoint = JWKSEndpoint(try jwks(provider, only: ["apple-1"]))
        try await withProviders(engine, apple: endpoint, configure: Self.withoutNonces) { identity, server in
            let fetches = { server.requests.filter { $0.path == "/apple" }.count }
            // Distinct tokens (each ID token is accepted once).
            let oldKey = try await provider.sign(
                [identity.appleClaims(sub: "u1"), identity.appleClaims(sub: "u1-again")],
                kid: "apple-1"
            )
            let newKey = try await provider.sign(
                [identity.appleClaims(sub: "u2"), identity.appleClaims(sub: "u2-again")],
                kid: "apple-2"
            )
            _ = try await identity.providerSignIn(.apple, oldKey[0])
            _ = try await identity.providerSignIn(.apple, oldKey[1])
            #expect(fetches() == 1)
            identity.clock.advance(by: .seconds(61))
            // The provider rotated but we still have the old set: one refetch, still unknown.
            #expect(
                await status { try await identity.providerSignIn(.apple, newKey[0]) } == IdentityStatus.unknownKeyID
            )
            #expect(fetches() == 2)
            // Forged kids cannot make identity hammer the provider.
            for _ in 0..<3 {
                #expect(
                    await status { try await identity.providerSignIn(.apple, newKey[0]) } == IdentityStatus.unknownKeyID
                )
            }
            #expect(fetches() == 2)
            endpoint.serve(try jwks(provider, only: ["apple-1", "apple-2"]))
            identity.clock.advance(by: .seconds(61))
            _ = try await identity.providerSignIn(.apple, newKey[1])
            #expect(fetches() == 3)
            // Past the max-age the set is fetched again.
            identity.clock.advance(by: .seconds(3601))
            let later = try await provider.sign(identity.appleClaims(sub: "u1"), kid: "apple-1")
            _ = try await identity.providerSignIn(.apple, later)
            #expect(fetches() == 4)
        }
    }

    @Test(
        "Without usable keys the provider fails closed, without retrying more than once per interval; stale keys serve for a bounded time",
        arguments: [TestEngine.sqlite]
    )
    func failClosed(engine: TestEngine) async throws {
        let provider = try await TestIdentityProvider.generate([("apple-1", "RS256")])
        let endpoint = JWKSEndpoint(provider.jwksJSON)
        endpoint.fail()
        try await withProviders(engine, apple: endpoint, configure: Self.withoutNonces) { identity, server in
            let fetches = { server.requests.filter { $0.path == "/apple" }.count }
            let first = try await provider.sign(identity.appleClaims(sub: "u1"), kid: "apple-1")
            #expect(
                await status { try await identity.providerSignIn(.apple, first) } == IdentityStatus.providerUnavailable
            )
            #expect(
                await status { try await identity.providerSignIn(.apple, first) } == IdentityStatus.providerUnavailable
            )
            #expect(fetches() == 1)
            #expect(IdentityStatus.providerUnavailable.retryClass == .notProcessed)

            // The endpoint recovers: after the interval identity tries again.
            endpoint.recover()
            identity.clock.advance(by: .seconds(61))
            let second = try await provider.sign(identity.appleClaims(sub: "u1"), kid: "apple-1")
            _ = try await identity.providerSignIn(.apple, second)
            #expect(fetches() == 2)

            // The endpoint goes down again: keys past their lifetime still serve for a while, then no more.
            endpoint.fail()
            identity.clock.advance(by: .seconds(3601))
            let stale = try await provider.sign(identity.appleClaims(sub: "u1"), kid: "apple-1")
            _ = try await identity.providerSignIn(.apple, stale)
            #expect(fetches() == 3)
            identity.clock.advance(by: .seconds(3601))
            let tooStale = try await provider.sign(identity.appleClaims(sub: "u1"), kid: "apple-1")
            #expect(
                await status { try await identity.providerSignIn(.apple, tooStale) }
                    == IdentityStatus.providerUnavailable
            )
        }
    }

    @Test("Keys can come from a JWKS file", arguments: [TestEngine.sqlite])
    func keysFromFile(engine: TestEngine) async throws {
        let provider = try await TestIdentityProvider.generate([("g-es", "ES256")])
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("foyer-jwks-\(UUID().uuidString).json")
        try Data(provider.jwksJSON).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        try await withIdentity(
            engine,
            configure: { configuration in
                var google = ProviderSettings.google(audiences: [googleAudience])
                google.keys = .file(file.path)
                configuration.google = google
            }
        ) { identity in
            let token = try await provider.sign(identity.googleClaims(sub: "file-user"), kid: "g-es")
            let session = try await identity.providerSignIn(.google, token)
            #expect(!session.isAnonymous)
            let unknown = try await TestIdentityProvider.generate([("other", "ES256")])
            let foreign = try await unknown.sign(identity.googleClaims(sub: "x"), kid: "other")
            #expect(await status { try await identity.providerSignIn(.google, foreign) } == IdentityStatus.unknownKeyID)
        }
    }
}
