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
            let spammer = "2001:db8:aa:ffff::1"
            for index in 0..<20 {
                // Addresses of one /48 count as one source, whichever of its /64s they are in.
                try await startLink(identity, "target\(index)@example.com", from: "2001:db8:aa:\(index + 1)::1")
            }
            let refused = try await rpcError { try await startLink(identity, "target20@example.com", from: spammer) }
            #expect(refused.status == IdentityStatus.tooManyAttempts)
            #expect(refused.retryAfterMilliseconds == 3_600_000)
            // The same addresses from elsewhere, and from an internal caller, still get their links.
            try await startLink(identity, "target20@example.com", from: "2001:db8:ab::1")
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
        try await withIdentity(
            engine,
            configure: { configuration in
                configuration.emailLink.globalMax = 3
                configuration.emailLink.globalReserve = 0
                configuration.emailLink.perSourcePastGlobalMax = 0
            }
        ) { identity in
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
        "Past the unreserved share, only known addresses and resets get links; unknown ones see the ordinary refusal",
        arguments: TestEngine.allCases
    )
    func reserve(engine: TestEngine) async throws {
        try await withIdentity(
            engine,
            configure: { configuration in
                configuration.emailLink.globalMax = 5
                configuration.emailLink.globalReserve = 2
                configuration.emailLink.perSourcePastGlobalMax = 0
            }
        ) { identity in
            _ = try await identity.member("owner@example.com", "the owner's passphrase")
            // Many sources spend the unreserved share on addresses no account has.
            for index in 1...3 { try await startLink(identity, "new\(index)@example.com", from: "192.0.2.\(index)") }
            let unknown = try await rpcError { try await startLink(identity, "new4@example.com", from: "192.0.2.4") }
            // The owner still gets a sign-in link, and a reset goes out (here to an unknown address).
            try await startLink(identity, "owner@example.com", from: "198.51.100.1")
            try await identity.call(
                IdentityMethods.startPasswordReset,
                StartPasswordResetRequest(
                    email: "nobody@example.com",
                    verifierChallenge: IdentityHarness.linkVerifier.challenge,
                    source: "198.51.100.2"
                )
            )
            // Now the whole budget is spent: the known address meets the very refusal the unknown one met.
            let known = try await rpcError { try await startLink(identity, "owner@example.com", from: "192.0.2.9") }
            for refusal in [unknown, known] {
                #expect(refusal.status == IdentityStatus.tooManyAttempts)
                #expect(refusal.retryAfterMilliseconds == 3_600_000)
            }
            #expect(unknown.message == known.message)
            #expect(try await identity.count("identity_email_links") == 5)
        }
    }

    @Test(
        "Once the global budget is spent, each source still gets a few links, up to a ceiling",
        arguments: TestEngine.allCases
    )
    func pastGlobal(engine: TestEngine) async throws {
        try await withIdentity(
            engine,
            configure: { configuration in
                configuration.emailLink.globalMax = 3
                configuration.emailLink.globalReserve = 0
                configuration.emailLink.perSourcePastGlobalMax = 1
                configuration.emailLink.pastGlobalMax = 3
            }
        ) { identity in
            for index in 1...3 { try await startLink(identity, "spent\(index)@example.com", from: "203.0.113.1") }
            // The source that spent the budget gets nothing more; a fresh one gets one link, not two.
            #expect(
                await status { try await startLink(identity, "more@example.com", from: "203.0.113.1") }
                    == IdentityStatus.tooManyAttempts
            )
            try await startLink(identity, "owner@example.com", from: "198.51.100.1")
            #expect(
                await status { try await startLink(identity, "owner2@example.com", from: "198.51.100.1") }
                    == IdentityStatus.tooManyAttempts
            )
            // An IPv6 client gets one per /48, not one per /64.
            try await startLink(identity, "v6@example.com", from: "2001:db8:cc:1::1")
            #expect(
                await status { try await startLink(identity, "v6b@example.com", from: "2001:db8:cc:2::1") }
                    == IdentityStatus.tooManyAttempts
            )
            try await startLink(identity, "other@example.com", from: "198.51.100.2")
            // The ceiling (globalMax + pastGlobalMax = 6) holds for fresh sources and internal callers alike.
            for source in ["198.51.100.3", "2001:db8:dd::1", ""] {
                #expect(
                    await status { try await startLink(identity, "late@example.com", from: source) }
                        == IdentityStatus.tooManyAttempts
                )
            }
            #expect(try await identity.count("identity_email_links") == 6)
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
