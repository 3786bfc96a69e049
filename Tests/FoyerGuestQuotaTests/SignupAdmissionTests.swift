import FoyerAPI
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
        }
    }
}
