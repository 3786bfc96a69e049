import Foundation
import FoyerAPI
import FoyerCrypto
import FoyerIdentity
import FoyerRPC
import FoyerTestSupport
import FoyerWire
import SQLKit
import Testing

@Suite("Refresh tokens")
struct RefreshTokenTests {
    private func refresh(_ identity: IdentityHarness, _ token: String) async throws -> SessionTokens {
        try await identity.call(IdentityMethods.refreshSession, RefreshSessionRequest(refreshToken: token))
    }

    private func refreshStatus(_ identity: IdentityHarness, _ token: String) async -> RPCStatus? {
        await status { try await refresh(identity, token) }
    }

    @Test(
        "Each refresh rotates; reuse after the grace revokes the whole family, and the newest token then fails",
        arguments: TestEngine.allCases
    )
    func rotationAndReuse(engine: TestEngine) async throws {
        try await withIdentity(engine) { identity in
            let r0 = try await identity.newGuest()
            let r1 = try await refresh(identity, r0.refreshToken)
            #expect(r1.refreshToken != r0.refreshToken && r1.sessionID == r0.sessionID && r1.uid == r0.uid)
            #expect(try Base64URL.decode(r1.refreshToken).count == 32)
            identity.clock.advance(by: .seconds(31))
            #expect(await refreshStatus(identity, r0.refreshToken) == IdentityStatus.refreshTokenReused)
            #expect(await refreshStatus(identity, r1.refreshToken) == IdentityStatus.tokenRevoked)
            #expect(
                await identity.status(
                    IdentityMethods.verifyAccessToken,
                    VerifyAccessTokenRequest(accessToken: r1.accessToken)
                ) == IdentityStatus.tokenRevoked
            )
            #expect(await refreshStatus(identity, "not-a-token") == IdentityStatus.invalidToken)
            #expect(
                await refreshStatus(identity, Base64URL.encode(SecureRandom.bytes(count: 32)))
                    == IdentityStatus.invalidToken
            )
        }
    }

    @Test(
        "Lost response: the immediate predecessor within the grace returns the same successor; an older ancestor revokes the family",
        arguments: TestEngine.allCases
    )
    func lostResponseRetry(engine: TestEngine) async throws {
        try await withIdentity(engine) { identity in
            let r0 = try await identity.newGuest()
            let r1 = try await refresh(identity, r0.refreshToken)
            identity.clock.advance(by: .seconds(10))
            let retried = try await refresh(identity, r0.refreshToken)
            #expect(retried.refreshToken == r1.refreshToken)
            #expect(try await identity.count("identity_refresh_tokens") == 2, "a retry mints nothing")
            let r2 = try await refresh(identity, r1.refreshToken)
            // r0 is now a grandparent of the newest token: reuse, even inside the grace.
            #expect(await refreshStatus(identity, r0.refreshToken) == IdentityStatus.refreshTokenReused)
            #expect(await refreshStatus(identity, r2.refreshToken) == IdentityStatus.tokenRevoked)
        }
    }

    @Test("Concurrent refreshes with one token produce exactly one successor", arguments: TestEngine.allCases)
    func concurrentRefreshes(engine: TestEngine) async throws {
        try await withIdentity(engine) { identity in
            let r0 = try await identity.newGuest()
            let successors = try await withThrowingTaskGroup(of: String.self) { group in
                for _ in 0..<8 {
                    group.addTask { try await refresh(identity, r0.refreshToken).refreshToken }
                }
                return try await group.reduce(into: [String]()) { $0.append($1) }
            }
            #expect(successors.count == 8)
            #expect(Set(successors).count == 1)
            #expect(try await identity.count("identity_refresh_tokens") == 2)
            _ = try await refresh(identity, successors[0])
        }
    }

    @Test(
        "Sessions expire when idle, and at the absolute limit however often they are refreshed",
        arguments: TestEngine.allCases
    )
    func idleAndAbsoluteExpiry(engine: TestEngine) async throws {
        try await withIdentity(
            engine,
            configure: { configuration in
                configuration.refreshIdleTimeout = .seconds(3600)
                configuration.refreshAbsoluteLifetime = .seconds(5 * 3600)
            }
        ) { identity in
            let idle = try await identity.newGuest()
            identity.clock.advance(by: .seconds(3601))
            #expect(await refreshStatus(identity, idle.refreshToken) == IdentityStatus.tokenExpired)

            var current = try await identity.newGuest()
            let start = identity.clock.now()
            #expect(
                current.refreshTokenExpiresAtMilliseconds
                    == UInt64((start.timeIntervalSince1970 + 3600) * 1000)
            )
            for _ in 0..<5 {
                identity.clock.advance(by: .seconds(3000))
                current = try await refresh(identity, current.refreshToken)
            }
            // 15 000 s in: the answer says the session ends at the absolute limit, not an hour from now.
            #expect(
                current.refreshTokenExpiresAtMilliseconds
                    == UInt64((start.timeIntervalSince1970 + 5 * 3600) * 1000)
            )
            identity.clock.advance(by: .seconds(3000))
            // 18 000 s: past the absolute limit though the session was used 3000 s ago.
            #expect(await refreshStatus(identity, current.refreshToken) == IdentityStatus.tokenExpired)
        }
    }

    @Test("Maintenance prunes expired sessions with their refresh tokens", arguments: [TestEngine.sqlite])
    func maintenance(engine: TestEngine) async throws {
        try await withIdentity(engine, configure: { $0.refreshIdleTimeout = .seconds(3600) }) { identity in
            let old = try await identity.newGuest()
            _ = try await refresh(identity, old.refreshToken)
            identity.clock.advance(by: .seconds(3601))
            let fresh = try await identity.newGuest()
            try await identity.service.runMaintenance()
            #expect(try await identity.count("identity_sessions") == 1)
            #expect(try await identity.count("identity_refresh_tokens") == 1)
            _ = try await refresh(identity, fresh.refreshToken)
        }
    }
}
