import FoyerAPI
import FoyerGuestQuota
import FoyerRPC
import FoyerTestSupport
import FoyerWire
import Testing

@Suite("sign-up admission: per-source buckets and the live-guest cap")
struct SignupAdmissionTests {
    private func admit(_ quota: GuestQuotaHarness, _ source: String) async throws -> AdmitSignupResponse {
        try await quota.client.call(GuestQuotaMethods.admitSignup, AdmitSignupRequest(source: source))
    }

    @Test(
        "a source gets 30 sign-ups, then signup-rate-limited with a retry-after; the bucket refills with time",
        arguments: TestEngine.allCases
    )
    func bucketPerSource(engine: TestEngine) async throws {
        try await withGuestQuota(engine) { quota async throws in
            for expected in (0..<30).reversed() {
                #expect(try await admit(quota, "203.0.113.7").remainingForSource == UInt64(expected))
            }
            let error = await expectStatus(GuestQuotaStatus.signupRateLimited) { try await admit(quota, "203.0.113.7") }
            // 30 an hour: one token every 120 s.
            #expect(error?.retryAfterMilliseconds == 120_000)
            #expect(try await admit(quota, "203.0.113.8").remainingForSource == 29)

            quota.clock.advance(by: 60)
            let later = await expectStatus(GuestQuotaStatus.signupRateLimited) { try await admit(quota, "203.0.113.7") }
            #expect(later?.retryAfterMilliseconds == 60_000)
            quota.clock.advance(by: 60)
            #expect(try await admit(quota, "203.0.113.7").remainingForSource == 0)
            quota.clock.advance(by: 3600 * 5)
            #expect(try await admit(quota, "203.0.113.7").remainingForSource == 29)
        }
    }

    @Test("IPv6 sources share a bucket per /64; IPv4-mapped addresses count as IPv4", arguments: TestEngine.allCases)
    func ipv6Grouping(engine: TestEngine) async throws {
        try await withGuestQuota(engine, configure: { $0.signupBurstPerSource = 3 }) { quota async throws in
            #expect(try await admit(quota, "2001:db8:1:2::1").remainingForSource == 2)
            #expect(try await admit(quota, "2001:db8:1:2:ffff:ffff:ffff:ffff").remainingForSource == 1)
            #expect(try await admit(quota, "2001:DB8:1:2:0:0:0:abcd").remainingForSource == 0)
            await expectStatus(GuestQuotaStatus.signupRateLimited) { try await admit(quota, "2001:db8:1:2::99") }
            #expect(try await admit(quota, "2001:db8:1:3::1").remainingForSource == 2)

            #expect(try await admit(quota, "198.51.100.1").remainingForSource == 2)
            #expect(try await admit(quota, "::ffff:198.51.100.1").remainingForSource == 1)
        }
    }

    @Test(
        "a source that is not an IP address is invalid-argument",
        arguments: ["", "localhost", "1.2.3", "1.2.3.4:80", "::g", "2001:db8::1/64"]
    )
    func invalidSource(source: String) async throws {
        try await withGuestQuota(.sqlite) { quota async throws in
            await expectStatus(.invalidArgument) { try await admit(quota, source) }
        }
    }

    @Test(
        "the live-guest cap refuses admission and guest opens with a retry-after; members are not counted",
        arguments: TestEngine.allCases
    )
    func guestCap(engine: TestEngine) async throws {
        try await withGuestQuota(
            engine,
            configure: {
                $0.liveGuestsMax = 2; $0.guestCapRetryAfter = .seconds(90)
            }
        ) { quota async throws in
            let first = try await quota.open()
            let admitted = try await admit(quota, "192.0.2.1")
            #expect(admitted.liveGuests == 1 && admitted.liveGuestsMax == 2)
            try await quota.open()
            let refused = await expectStatus(GuestQuotaStatus.guestCapReached) { try await admit(quota, "192.0.2.1") }
            #expect(refused?.retryAfterMilliseconds == 90_000)
            let opened = await expectStatus(GuestQuotaStatus.guestCapReached) { try await quota.open() }
            #expect(opened?.retryAfterMilliseconds == 90_000)
            try await quota.open(plan: "member")
            #expect(try await quota.liveGuests() == 2)

            _ = try await quota.client.call(GuestQuotaMethods.changePlan, ChangePlanRequest(uid: first, plan: "member"))
            #expect(try await admit(quota, "192.0.2.1").liveGuests == 1)
            try await quota.open()
            await expectStatus(GuestQuotaStatus.guestCapReached) { try await admit(quota, "192.0.2.2") }
            // A guest's first consume opens its account: at the cap it is refused like an open, counting nothing.
            let unopened = testUID()
            await expectStatus(GuestQuotaStatus.guestCapReached) { try await quota.consume(unopened, "documents", 1) }
            #expect(try await quota.liveGuests() == 2)
            let deleted = try await quota.client.call(GuestQuotaMethods.deleteAll, QuotaDeleteAllRequest(uid: unopened))
            #expect(!deleted.existed)
        }
    }

    @Test(
        "an admission with a uid opens the guest's account under the cap in its own commit, once; at the cap it takes nothing",
        arguments: TestEngine.allCases
    )
    func admissionOpensTheAccount(engine: TestEngine) async throws {
        try await withGuestQuota(
            engine,
            configure: {
                $0.liveGuestsMax = 2; $0.signupBurstPerSource = 10
            }
        ) {
            quota async throws in
            let first = testUID()
            let admitted = try await quota.client.call(
                GuestQuotaMethods.admitSignup,
                AdmitSignupRequest(source: "192.0.2.1", uid: first)
            )
            #expect(admitted.remainingForSource == 9)
            // The guest counts from its sign-up, written or not, and its account is on the guest plan.
            #expect(try await quota.liveGuests() == 1)
            let usage = try await quota.client.call(GuestQuotaMethods.usage, QuotaUsageRequest(uid: first))
            #expect(usage.plan == "guest")
            // The same uid again opens nothing more.
            _ = try await quota.client.call(
                GuestQuotaMethods.admitSignup,
                AdmitSignupRequest(source: "192.0.2.1", uid: first)
            )
            #expect(try await quota.liveGuests() == 1)
            _ = try await quota.client.call(
                GuestQuotaMethods.admitSignup,
                AdmitSignupRequest(source: "192.0.2.1", uid: testUID())
            )
            #expect(try await quota.liveGuests() == 2)
            // At the cap: refused, no token taken, nothing opened.
            let third = testUID()
            await expectStatus(GuestQuotaStatus.guestCapReached) {
                try await quota.client.call(
                    GuestQuotaMethods.admitSignup,
                    AdmitSignupRequest(source: "192.0.2.1", uid: third)
                )
            }
            #expect(try await quota.liveGuests() == 2)
            let deleted = try await quota.client.call(GuestQuotaMethods.deleteAll, QuotaDeleteAllRequest(uid: third))
            #expect(!deleted.existed)
            // Taking an unused account away gives its place back.
            _ = try await quota.client.call(GuestQuotaMethods.deleteAll, QuotaDeleteAllRequest(uid: first))
            #expect(try await quota.liveGuests() == 1)
        }
    }

    @Test(
        "the /64s of one IPv6 /48 share a second bucket, refilled at its own rate; other /48s and IPv4 have their own",
        arguments: TestEngine.allCases
    )
    func networkBucket(engine: TestEngine) async throws {
        try await withGuestQuota(
            engine,
            configure: { configuration in
                configuration.signupBurstPerSource = 3
                configuration.signupBurstPerNetwork = 5
                configuration.signupsPerNetworkPerHour = 5
            }
        ) { quota async throws in
            // The /48's bucket is the smaller one once its /64s together drew on it.
            #expect(try await admit(quota, "2001:db8:7:1::1").remainingForSource == 2)
            #expect(try await admit(quota, "2001:db8:7:1::2").remainingForSource == 1)
            #expect(try await admit(quota, "2001:db8:7:1::3").remainingForSource == 0)
            #expect(try await admit(quota, "2001:db8:7:2::1").remainingForSource == 1)
            #expect(try await admit(quota, "2001:db8:7:3::1").remainingForSource == 0)
            // A fresh /64 of the same /48 is refused: 5 an hour is one token every 720 s.
            let refused = await expectStatus(GuestQuotaStatus.signupRateLimited) {
                try await admit(quota, "2001:db8:7:4::1")
            }
            #expect(refused?.retryAfterMilliseconds == 720_000)
            // Another /48, and IPv4 sources, have buckets of their own.
            #expect(try await admit(quota, "2001:db8:8:4::1").remainingForSource == 2)
            #expect(try await admit(quota, "198.51.100.9").remainingForSource == 2)
            // The /48 refills at its own rate: one more sign-up after 720 s, then none again.
            quota.clock.advance(by: 720)
            #expect(try await admit(quota, "2001:db8:7:4::1").remainingForSource == 0)
            await expectStatus(GuestQuotaStatus.signupRateLimited) { try await admit(quota, "2001:db8:7:5::1") }
        }
    }

    @Test(
        "past the warning share of the cap, admissions log one warning per ten minutes, with both numbers",
        arguments: TestEngine.allCases
    )
    func nearCapWarning(engine: TestEngine) async throws {
        let log = CapturedLog()
        let withLoggedQuota = StoreServiceUnderTest<GuestQuotaConfiguration>(service: "guest-quota") {
            configuration,
            server,
            _ in
            try await GuestQuotaService.make(configuration: configuration, server: server, logger: log.logger())
        }
        try await withLoggedQuota(engine, configure: { $0.liveGuestsMax = 5 }) { quota async throws in
            let message = "live guests near the cap: new guests are refused once it is reached"
            for _ in 0..<3 { try await quota.open() }
            _ = try await admit(quota, "192.0.2.1")
            #expect(log.records(message).isEmpty)
            try await quota.open()
            // 4 of 5 is the default 80%.
            for _ in 0..<3 { _ = try await admit(quota, "192.0.2.1") }
            let warned = log.records(message)
            #expect(warned.count == 1)
            #expect(warned.first?.level == .warning)
            #expect(warned.first?.metadata["guests.live"] == "4" && warned.first?.metadata["guests.max"] == "5")
            quota.clock.advance(by: 601)
            _ = try await admit(quota, "192.0.2.1")
            #expect(log.records(message).count == 2)
        }
    }
}
