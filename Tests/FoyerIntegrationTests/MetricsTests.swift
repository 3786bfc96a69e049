import FoyerClient
import FoyerStackProcesses
import Testing

/// The Prometheus endpoints of the real executables (`--metrics-port`): after a journey, each service's `/metrics`
/// shows the calls, sign-ups, denials and deletions the journey caused, and the process gauges; anything but
/// `GET /metrics` is refused.
@Suite("Metrics of the real executables (SQLite)")
struct MetricsTests {
    @Test("a journey's calls, sign-ups, quota denial, sweep and deletion show in every service's /metrics")
    func journeyShowsInMetrics() async throws {
        try await withRunningStack(RunningStackOptions(metrics: true)) { stack async throws in
            // Given a guest that writes until the quota refuses, then links an email (a member), and a second guest
            // idle past the TTL, deleted by a sweep
            let idle = try await stack.withClient { client async throws in
                try await client.signInAsGuest().uid
            }
            try await stack.withClient { client async throws in
                _ = try await client.signInAsGuest()
                for index in 1...20 { try await client.put("notes", "n\(index)", "text \(index)") }
                let denied = await foyerFailure { try await client.put("notes", "n21", "text 21") }
                #expect(denied == .quotaExceeded)
                _ = try await client.link(email: uniqueEmail("metrics"), password: password)
            }
            try stack.setClockOffset(seconds: 31 * 86_400)
            let report = try await stack.sweep()
            #expect(report.expiredGuests >= 1, "\(report)")
            try await expectGone(idle, stack)

            // When each service's /metrics is scraped
            func scrape(_ service: StackService) throws -> MetricsScrape {
                let scrape = try MetricsScrape.exchange(port: stack.processes.metricsPort(of: service))
                #expect(scrape.status == 200, "\(service)")
                return scrape
            }
            let identity = try scrape(.identity)
            let quota = try scrape(.guestQuota)
            let userData = try scrape(.userData)
            let cleanup = try scrape(.cleanup)
            let gateway = try scrape(.gateway)

            // Then each shows what the journey did
            let serverCalls = "foyer_rpc_server_calls_total"
            #expect(identity.sample(serverCalls, #"service="identity",method="createGuest",status="ok""#) ?? 0 >= 2)
            #expect(identity.sample("foyer_identity_signups_total", #"kind="guest""#) ?? 0 >= 2)
            #expect(identity.sample("foyer_identity_signups_total", #"kind="member""#) ?? 0 >= 1)
            #expect(quota.sample(serverCalls, #"service="guest-quota",method="consume",status="ok""#) ?? 0 >= 20)
            #expect(quota.sample("foyer_guest_quota_denials_total", #"counter="documents""#) ?? 0 >= 1)
            #expect(userData.total(serverCalls, containing: [#"service="user-data""#, #"status="ok""#]) >= 20)
            #expect(
                userData.sample("foyer_db_transaction_duration_seconds_count", #"engine="sqlite",outcome="commit""#)
                    ?? 0 >= 20
            )
            #expect(userData.total("foyer_db_pool_wait_seconds_count", containing: []) >= 20)
            #expect(gateway.sample(serverCalls, #"service="gateway",method="putDocument",status="ok""#) ?? 0 >= 20)
            #expect(
                gateway.total(serverCalls, containing: [#"method="putDocument""#, #"status="quota-exceeded""#]) >= 1
            )
            #expect(
                gateway.sample("foyer_rpc_client_calls_total", #"upstream="identity",method="createGuest",status="ok""#)
                    ?? 0 >= 2
            )
            #expect(gateway.total("foyer_rpc_client_call_duration_seconds_count", containing: []) >= 20)
            #expect(gateway.sample("foyer_rpc_server_connections", #"service="gateway""#) != nil)
            #expect(cleanup.total("foyer_cleanup_sweeps_total", containing: []) >= 1)
            #expect(cleanup.sample("foyer_cleanup_deletions_total", #"kind="expired_guest""#) ?? 0 >= 1)
            #expect(cleanup.sample("foyer_cleanup_deleted_guest_age_seconds_count") ?? 0 >= 1)
            // 31 days idle: above the 30-day bucket, inside the 45-day one.
            #expect(cleanup.sample("foyer_cleanup_deleted_guest_age_seconds_bucket", #"le="2592000.0""#) == 0)
            #expect(cleanup.sample("foyer_cleanup_deleted_guest_age_seconds_bucket", #"le="3888000.0""#) ?? 0 >= 1)
            for scrape in [identity, quota, userData, cleanup, gateway] {
                #expect(scrape.sample("foyer_process_resident_memory_bytes") ?? 0 > 0)
                #expect(scrape.sample("foyer_process_open_fds") ?? 0 > 0)
            }
        }
    }

    @Test("anything but GET /metrics is refused: 404 for another path, 405 for another method, a large head unanswered")
    func onlyGetMetrics() async throws {
        try await withRunningStack(RunningStackOptions(metrics: true)) { stack async throws in
            for service in StackService.allCases {
                let port = stack.processes.metricsPort(of: service)
                #expect(try MetricsScrape.exchange(port: port, target: "/").status == 404, "\(service)")
                #expect(try MetricsScrape.exchange(port: port, target: "/metricsx").status == 404, "\(service)")
                #expect(try MetricsScrape.exchange(port: port, method: "POST").status == 405, "\(service)")
                #expect(try MetricsScrape.exchange(port: port, method: "DELETE").status == 405, "\(service)")
                #expect(try MetricsScrape.exchange(port: port).status == 200, "\(service)")
                // A request head past the endpoint's 8 KiB is not answered: the connection is closed.
                #expect(throws: ScrapeError.self) { try MetricsScrape.exchange(port: port, padding: 16_384) }
                #expect(try MetricsScrape.exchange(port: port, padding: 4096).status == 200, "\(service)")
            }
        }
    }
}
