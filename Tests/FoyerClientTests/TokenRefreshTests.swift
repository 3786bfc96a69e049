import FoyerAPI
import FoyerClient
import Synchronization
import Testing

@Suite("Access-token refresh")
struct TokenRefreshTests {
    /// The sessions a client adopted, in order.
    final class SessionLog: Sendable {
        private let sessions = Mutex<[SessionTokens?]>([])
        func record(_ session: SessionTokens?) { sessions.withLock { $0.append(session) } }
        var all: [SessionTokens?] { sessions.withLock { $0 } }
    }

    @Test("A call refreshes first when less than the margin is left of the access token")
    func refreshesBeforeExpiry() async throws {
        try await withStack { stack in
            let log = SessionLog()
            try await stack.withClient(sessionDidChange: log.record) { client in
                let first = try await client.signInAsGuest()
                // 14.5 of the token's 15 minutes pass: 30 s are left, under the 60 s margin.
                stack.clock.advance(by: 14 * 60 + 30)
                let me = try await client.me()
                #expect(me.user.uid == first.uid)
                let now = try #require(await client.session)
                #expect(now.uid == first.uid)
                #expect(now.sessionID == first.sessionID)
                #expect(now.accessToken != first.accessToken)
                #expect(now.refreshToken != first.refreshToken)
                #expect(now.accessTokenExpiresAtMilliseconds > first.accessTokenExpiresAtMilliseconds)
                #expect(log.all.count == 2)
                #expect(log.all.last == now)

                // With time left, no refresh.
                _ = try await client.quota()
                #expect(await client.session == now)
            }
        }
    }

    @Test("A token-expired answer is followed by one refresh and one retry")
    func refreshesOnceOnTokenExpired() async throws {
        try await withStack { stack in
            // The client's clock says the token is fresh; the stack's runs 20 minutes ahead.
            let log = SessionLog()
            try await stack.withClient(sharedClock: false, sessionDidChange: log.record) { client in
                let first = try await client.signInAsGuest()
                try await client.put("notes", "n", "v")
                stack.clock.advance(by: 20 * 60)
                #expect(try await client.get("notes", "n")?.text == "v")
                let now = try #require(await client.session)
                #expect(now.accessToken != first.accessToken)
                #expect(log.all.count == 2)
            }
        }
    }

    @Test("Concurrent calls that all need a refresh share one")
    func concurrentCallsShareOneRefresh() async throws {
        try await withStack { stack in
            let log = SessionLog()
            try await stack.withClient(sessionDidChange: log.record) { client in
                let first = try await client.signInAsGuest()
                stack.clock.advance(by: 14 * 60 + 30)
                try await withThrowingTaskGroup(of: String.self) { group in
                    for _ in 0..<8 { group.addTask { try await client.me().user.uid } }
                    for try await uid in group { #expect(uid == first.uid) }
                }
                // One sign-in, one refresh: refresh tokens are single use, so refreshing the same one twice would
                // have been a reuse.
                #expect(log.all.count == 2)
            }
        }
    }

    @Test("An expired session is an authentication failure that says to sign in again")
    func expiredSessionFails() async throws {
        try await withStack { stack in
            try await stack.withClient { client in
                try await client.signInAsGuest()
                stack.clock.advance(by: 31 * 86_400)
                let error = await anyError { try await client.me() }
                #expect(error?.isAuthenticationFailure == true)
            }
        }
    }
}
