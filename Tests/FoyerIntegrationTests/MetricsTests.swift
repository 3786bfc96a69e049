import Foundation
import FoyerAPI
import FoyerClient
import FoyerStackProcesses
import FoyerTestSupport
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The Prometheus endpoints of the real executables (`--metrics-port`): after a journey, each service's `/metrics`
/// shows the calls, sign-ups, denials and deletions the journey caused, and the process gauges; the gateway's shows
/// the calls its HTTP edge answered; anything but `GET /metrics` is refused.
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
            // and a deletion left stuck half-way (begun at identity, nothing after)
            let stuck = try await stack.withClient { client async throws in try await client.signInAsGuest().uid }
            let identityClient = testClient(
                port: stack.processes.port(of: .identity),
                service: "identity",
                secret: try FoyerCleanupClient.loadSecret(path: stack.processes.configuration.clusterSecretFile.path)
            )
            _ = try await identityClient.call(
                IdentityMethods.beginDelete,
                BeginDeleteRequest(uid: stuck, operationID: "metrics-stuck-deletion")
            )
            await identityClient.shutdown()
            try stack.setClockOffset(seconds: 31 * 86_400)
            let report = try await stack.sweep()
            #expect(report.expiredGuests >= 1, "\(report)")
            #expect(report.stuckFinished >= 1, "\(report)")
            // The stuck deletion had waited 31 days on the stack's clock when that sweep found it (the next sweep,
            // finding none, sets 0).
            let stuckAge = try MetricsScrape.exchange(port: stack.processes.metricsPort(of: .cleanup))
                .sample("foyer_cleanup_oldest_stuck_account_seconds")
            #expect(stuckAge ?? 0 >= 30 * 86_400)
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
            // The live-guest gauges, set at each sign-up admission: both numbers and their ratio.
            let liveGuestsMax = quota.sample("foyer_guest_quota_live_guests_max") ?? 0
            #expect(liveGuestsMax >= 1)
            #expect(quota.sample("foyer_guest_quota_live_guests") ?? -1 >= 0)
            #expect(quota.sample("foyer_guest_quota_live_guests_ratio") ?? -1 >= 0)
            #expect(userData.total(serverCalls, containing: [#"service="user-data""#, #"status="ok""#]) >= 20)
            #expect(
                userData.sample("foyer_db_transaction_duration_seconds_count", #"engine="sqlite",outcome="commit""#)
                    ?? 0 >= 20
            )
            #expect(userData.total("foyer_db_pool_wait_seconds_count", containing: []) >= 20)
            // Every committed transaction was in a committed batch (beside any that failed and were rolled back).
            let batches = userData.sample("foyer_db_commit_batch_transactions_count") ?? 0
            let batched = userData.sample("foyer_db_commit_batch_transactions_sum") ?? 0
            let committed =
                userData.sample("foyer_db_transaction_duration_seconds_count", #"engine="sqlite",outcome="commit""#)
                ?? 0
            #expect(batches >= 1 && batched >= batches && batched >= committed)
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

    @Test("HTTP calls show in the gateway's /metrics by route template, method and status; an unknown path as other")
    func httpEdgeShowsInMetrics() async throws {
        try await withRunningStack(RunningStackOptions(gatewayHTTP: true, metrics: true)) { stack async throws in
            // Given a guest made over HTTP, two documents written, a missing one read, an unknown path, a health check
            let api = stack.httpBaseURL
            let guest = try await httpExchange("POST", "\(api)/v1/guests", idempotent: true)
            #expect(guest.status == 201)
            let session = try JSONSerialization.jsonObject(with: guest.body) as? [String: Any]
            let token = try #require(session?["accessToken"] as? String)
            for key in ["n1", "n2"] {
                let put = try await httpExchange(
                    "PUT",
                    "\(api)/v1/documents/notes/\(key)",
                    token: token,
                    idempotent: true,
                    json: #"{"value": "text"}"#
                )
                #expect(put.status == 200)
            }
            #expect(try await httpExchange("GET", "\(api)/v1/documents/notes/missing", token: token).status == 404)
            #expect(try await httpExchange("GET", "\(api)/no/such/path").status == 404)
            #expect(try await httpExchange("GET", "\(api)/healthz").status == 200)

            // When the gateway's /metrics is scraped
            let scrape = try MetricsScrape.exchange(port: stack.processes.metricsPort(of: .gateway))
            #expect(scrape.status == 200)

            // Then each call is counted under its operation's template, never its concrete path
            let requests = "foyer_http_requests_total"
            let document = #"route="/v1/documents/{collection}/{key}""#
            #expect(scrape.sample(requests, #"route="/v1/guests",method="POST",status="201""#) == 1)
            #expect(scrape.sample(requests, #"\#(document),method="PUT",status="200""#) == 2)
            #expect(scrape.sample(requests, #"\#(document),method="GET",status="404""#) == 1)
            #expect(scrape.sample(requests, #"route="other",method="GET",status="404""#) == 1)
            #expect(scrape.sample(requests, #"route="/healthz",method="GET",status="200""#) ?? 0 >= 1)
            let durations = "foyer_http_request_duration_seconds"
            #expect(scrape.sample("\(durations)_count", #"\#(document),method="PUT""#) == 2)
            #expect(scrape.sample("\(durations)_bucket", #"\#(document),method="PUT",le="10.0""#) == 2)
            #expect(scrape.sample("\(durations)_bucket", #"\#(document),method="PUT",le="0.0005""#) != nil)
            #expect(!scrape.body.contains("notes/n1") && !scrape.body.contains("no/such"))
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

/// One answer of the gateway's HTTP edge.
private struct HTTPExchange {
    var status: Int
    var body: Data
}

/// Sends `verb url` (with a bearer token, a fresh `Idempotency-Key` and a JSON body when asked) and returns the
/// answer, whatever its status.
private func httpExchange(
    _ verb: String,
    _ url: String,
    token: String? = nil,
    idempotent: Bool = false,
    json: String? = nil
) async throws -> HTTPExchange {
    var request = URLRequest(url: try #require(URL(string: url)))
    request.httpMethod = verb
    if let token { request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
    if idempotent {
        let key = Data((0..<24).map { _ in UInt8.random(in: 0...255) }).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
        request.setValue(key, forHTTPHeaderField: "Idempotency-Key")
    }
    if let json {
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.httpBody = Data(json.utf8)
    }
    let (body, response) = try await URLSession.shared.data(for: request)
    let http = try #require(response as? HTTPURLResponse)
    return HTTPExchange(status: http.statusCode, body: body)
}
