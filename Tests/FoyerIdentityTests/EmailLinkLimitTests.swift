import Foundation
import FoyerAPI
import FoyerCrypto
import FoyerIdentity
import FoyerRPC
import FoyerTestSupport
import FoyerWire
import SQLKit
import Testing

/// The limits on sending email links besides the per-address one: per client source, and for the whole service.
@Suite("Email links limited per client source and in all")
struct EmailLinkLimitTests {
    private func startLink(_ identity: IdentityHarness, _ email: String, from source: String) async throws {
        try await identity.call(
            IdentityMethods.startEmailLink,
            StartEmailLinkRequest(
                purpose: .signIn,
                email: email,
                verifierChallenge: LinkVerifier().challenge,
                source: source
            )
        )
    }

    @Test(
        "One source gets 20 links an hour to any addresses; other sources and internal callers are not held back",
        arguments: TestEngine.allCases
    )
    func perSource(engine: TestEngine) async throws {
        try await withIdentity(engine) { identity in
            let spammer = "2001:db8:aa:1::1"
            for index in 0..<20 {
                // Addresses of one /64 count as one source.
                try await startLink(identity, "target\(index)@example.com", from: "2001:db8:aa:1::\(index + 1)")
            }
            let refused = try await rpcError { try await startLink(identity, "target20@example.com", from: spammer) }
            #expect(refused.status == IdentityStatus.tooManyAttempts)
            #expect(refused.retryAfterMilliseconds == 3_600_000)
            // The same addresses from elsewhere, and from an internal caller, still get their links.
            try await startLink(identity, "target20@example.com", from: "2001:db8:aa:2::1")
            try await startLink(identity, "target0@example.com", from: "198.51.100.1")
            try await startLink(identity, "target1@example.com", from: "")
            #expect(identity.service.statistics.mailsSent == 23)

            // The window slides: once the first links are an hour old, the source may ask again.
            identity.clock.advance(by: .seconds(3601))
            try await startLink(identity, "target20@example.com", from: spammer)
        }
    }

    @Test(
        "The whole service sends at most globalMax links per window, from any sources",
        arguments: TestEngine.allCases
    )
    func global(engine: TestEngine) async throws {
        try await withIdentity(engine, configure: { $0.emailLink.globalMax = 3 }) { identity in
            try await startLink(identity, "a@example.com", from: "192.0.2.1")
            identity.clock.advance(by: .seconds(600))
            try await startLink(identity, "b@example.com", from: "192.0.2.2")
            try await startLink(identity, "c@example.com", from: "")
            let refused = try await rpcError { try await startLink(identity, "d@example.com", from: "192.0.2.4") }
            #expect(refused.status == IdentityStatus.tooManyAttempts)
            // The oldest link leaves the window 50 minutes from now.
            #expect(refused.retryAfterMilliseconds == 3_000_000)
            #expect(
                await status { try await startLink(identity, "d@example.com", from: "") }
                    == IdentityStatus.tooManyAttempts
            )
            identity.clock.advance(by: .seconds(3001))
            try await startLink(identity, "d@example.com", from: "192.0.2.4")
            #expect(identity.service.statistics.mailsSent == 4)
        }
    }

    @Test(
        "Concurrent requests from one source cannot slip past its limit together",
        arguments: TestEngine.allCases
    )
    func concurrentRequests(engine: TestEngine) async throws {
        try await withIdentity(engine, configure: { $0.emailLink.perSourceMax = 5 }) { identity in
            let statuses = await withTaskGroup(of: RPCStatus?.self) { group in
                for index in 0..<30 {
                    group.addTask {
                        await status { try await startLink(identity, "many\(index)@example.com", from: "192.0.2.50") }
                    }
                }
                return await group.reduce(into: [RPCStatus?]()) { $0.append($1) }
            }
            #expect(statuses.count(where: { $0 == nil }) == 5)
            #expect(statuses.count(where: { $0 == IdentityStatus.tooManyAttempts }) == 25)
            let stored = try await identity.count("identity_email_links")
            #expect(stored == 5)
        }
    }

    @Test(
        "A link keeps only a hash of its source, and the janitor keeps links for the longest window",
        arguments: TestEngine.allCases
    )
    func storedSource(engine: TestEngine) async throws {
        try await withIdentity(engine, configure: { $0.emailLink.perSourceWindow = .seconds(7200) }) { identity in
            try await startLink(identity, "kept@example.com", from: "::ffff:203.0.113.9")
            try await startLink(identity, "internal@example.com", from: "")
            let stored = try await identity.database.withConnection { sql in
                try await sql.raw("SELECT email, source_hash FROM identity_email_links ORDER BY email").all().map {
                    (try $0.decode(column: "email", as: String.self), try $0.decodeOptionalBytes(column: "source_hash"))
                }
            }
            #expect(stored.map(\.0) == ["internal@example.com", "kept@example.com"])
            #expect(stored[0].1 == nil)
            #expect(stored[1].1 == SHA256.hash(Array("email-link-source:4:203.0.113.9".utf8)))

            // Past the per-address window (1 hour) but inside the per-source one (2 hours), the rows still count.
            identity.clock.advance(by: .seconds(5400))
            try await identity.service.runMaintenance()
            #expect(try await identity.count("identity_email_links") == 2)
            identity.clock.advance(by: .seconds(1801))
            try await identity.service.runMaintenance()
            #expect(try await identity.count("identity_email_links") == 0)
        }
    }
}
