import Foundation
import FoyerAPI
import FoyerClient
import FoyerGateway
import FoyerJSON
import FoyerTestSupport
import NIOCore
import Testing

/// `FoyerClient` over the gateway's HTTP edge (`FoyerClientConfiguration.httpBaseURL`): the same calls, the same
/// answers and the same errors as over the binary protocol, against the in-process stack and its HTTP listener.
@Suite("FoyerClient over the HTTP edge")
struct HTTPTransportTests {
    @Test("A guest puts, gets and pages documents over HTTP, and gets the bytes back as put")
    func documents() async throws {
        try await withHTTPEdge { edge in
            try await edge.withHTTPClient { client in
                let guest = try await client.signInAsGuest()
                #expect(guest.isAnonymous)
                #expect(try await client.me().user.uid == guest.uid)

                // A key that needs escaping in a path, raw bytes, and a JSON value in the gateway's own form
                let put = try await client.put("notes", "a/b ?..", "text with a slash")
                #expect(put.version == 1)
                try await client.put("notes", "bytes", bytes: [0, 255, 1, 128])
                try await client.put("notes", "json", #"{"a":[true,null],"b":1.5,"c":"x/y"}"#)
                #expect(try await client.get("notes", "a/b ?..")?.text == "text with a slash")
                #expect(try await client.get("notes", "bytes")?.bytes == [0, 255, 1, 128])
                #expect(try await client.get("notes", "json")?.text == #"{"a":[true,null],"b":1.5,"c":"x/y"}"#)
                #expect(try await client.get("notes", "missing") == nil)

                // A version mismatch carries the current version, as over the binary protocol
                let mismatch = await expectError(.versionMismatch) {
                    try await client.put("notes", "bytes", "again", expectedVersion: 0)
                }
                #expect(mismatch?.currentVersion == 1)

                // Pages of two with a cursor, the same pages the binary protocol gives
                for index in 1...5 { try await client.put("pages", "p\(index)", "page \(index)") }
                var keys: [String] = []
                var cursor: ByteBuffer?
                var pages = 0
                repeat {
                    let page = try await client.list("pages", cursor: cursor, pageSize: 2)
                    let binaryPage = try await edge.stack.withClient(session: await client.session) {
                        try await $0.list("pages", cursor: cursor, pageSize: 2)
                    }
                    #expect(page.documents.map(\.key) == binaryPage.documents.map(\.key))
                    #expect(page.documents.map(\.bytes) == binaryPage.documents.map(\.bytes))
                    #expect(page.nextCursor == binaryPage.nextCursor)
                    keys += page.documents.map(\.key)
                    cursor = page.nextCursor
                    pages += 1
                } while cursor != nil
                #expect(keys == ["p1", "p2", "p3", "p4", "p5"])
                #expect(pages == 3)
                #expect(try await client.exportAll(pageSize: 3).count == 8)

                #expect(try await client.delete("pages", "p1"))
                #expect(try await !client.delete("pages", "p1"))
                let quota = try await client.quota()
                #expect(quota.counters.first { $0.counter == "documents" }?.used == 7)
            }
        }
    }

    @Test("Over HTTP a guest links a taken email, gets the conflict, merges into the account, and deletes it")
    func linkConflictMergeDelete() async throws {
        try await withHTTPEdge { edge in
            let email = uniqueEmail()
            let member = try await edge.withHTTPClient { client in
                try await client.signInAsGuest()
                let linked = try await client.link(email: email, password: strongPassword)
                #expect(linked.outcome == .linked)
                #expect(linked.session?.isAnonymous == false)
                return try #require(linked.session)
            }
            try await edge.withHTTPClient { client in
                let guest = try await client.signInAsGuest()
                try await client.put("drafts", "d1", "written as a guest")
                try await client.refreshSession()

                let conflict = try await client.link(email: email, password: strongPassword, onConflict: .fail)
                #expect(conflict.outcome == .conflict)
                let details = try #require(conflict.conflict)
                #expect(details.otherUID == member.uid)
                #expect(await client.uid == guest.uid)

                let merged = try await client.resolveConflict(ticket: details.ticket, choice: .merge)
                #expect(merged.outcome == .merged)
                #expect(merged.session?.uid == member.uid)
                #expect(merged.mergeReport?.moved == 1)
                #expect(await client.uid == member.uid)

                let me = try await client.me()
                #expect(me.user.uid == member.uid)
                #expect(me.user.email == email)
                #expect(me.user.hasPassword)
                #expect(me.user.state.kind == .active)
                #expect(me.usage.plan == "member")
                #expect(try await client.get("drafts", "d1")?.text == "written as a guest")

                let stale = try #require(await client.session)
                #expect(try await client.deleteAccount() == 1)
                #expect(await client.session == nil)
                await client.setSession(stale)
                #expect(await anyError { try await client.me() }?.isAuthenticationFailure == true)
            }
        }
    }

    @Test("quota-exceeded arrives over HTTP as the same FoyerError, with the same counts, as over binary")
    func quotaErrorMatchesBinary() async throws {
        try await withHTTPEdge { edge in
            try await edge.withHTTPClient { client in
                try await client.signInAsGuest()
                for index in 1...20 { try await client.put("notes", "n\(index)", "note \(index)") }
                let overHTTP = await expectError(.quotaExceeded) { try await client.put("notes", "n21", "one more") }
                let overBinary = try await edge.stack.withClient(session: await client.session) { binary in
                    await expectError(.quotaExceeded) { try await binary.put("notes", "n21", "one more") }
                }
                let quota = try #require(overHTTP?.quotaExceeded)
                #expect(quota == overBinary?.quotaExceeded)
                #expect(quota.limit == 20 && quota.used == 20 && quota.remaining == 0 && quota.requested == 1)
                #expect(overHTTP?.name == "quota-exceeded")
                #expect(overHTTP?.status == overBinary?.status)
            }
        }
    }

    @Test("A 429 arrives over HTTP as the same rate-limited FoyerError as over binary, with its retry-after")
    func rateLimitMatchesBinary() async throws {
        var options = StackOptions()
        options.sourceLimits.signIn = RateLimit(perMinute: 1, burst: 1)
        try await withHTTPEdge(options: options) { edge in
            let overBinary = try await edge.stack.withClient { binary in
                _ = await expectError(.invalidCredentials) {
                    try await binary.signIn(email: uniqueEmail(), password: strongPassword)
                }
                return await expectError(.rateLimited) {
                    try await binary.signIn(email: uniqueEmail(), password: strongPassword)
                }
            }
            let overHTTP = try await edge.withHTTPClient { client in
                await expectError(.rateLimited) {
                    try await client.signIn(email: uniqueEmail(), password: strongPassword)
                }
            }
            #expect(overHTTP?.isRateLimited == true)
            #expect(overHTTP?.retryAfter != nil)
            #expect(overBinary?.retryAfter != nil)
            #expect(overHTTP?.name == overBinary?.name)
        }
    }

    @Test("An answer longer than httpResponseByteCountMax is not read")
    func answerSizeCap() async throws {
        try await withHTTPEdge { edge in
            try await edge.withHTTPClient(adjust: { $0.httpResponseByteCountMax = 1024 }) { client in
                try await client.signInAsGuest()
                try await client.put("notes", "small", "fits")
                try await client.put("notes", "large", String(repeating: "x", count: 2000))
                #expect(try await client.get("notes", "small")?.text == "fits")
                let refused = await expectError(.internal) { try await client.get("notes", "large") }
                #expect(refused?.message.contains("larger than 1024 bytes") == true)
            }
        }
    }

    @Test("An address with http:// or https:// names the HTTP edge; HOST:PORT the binary listener")
    func addresses() throws {
        let https = try FoyerClientConfiguration(address: "https://api.example.com")
        #expect(https.httpBaseURL?.absoluteString == "https://api.example.com")
        #expect(https.port == 443)
        #expect(https.address == "https://api.example.com")
        let http = try FoyerClientConfiguration(address: "http://127.0.0.1:7480")
        #expect(http.httpBaseURL?.absoluteString == "http://127.0.0.1:7480")
        #expect(try FoyerClientConfiguration(address: http.address).httpBaseURL == http.httpBaseURL)
        let binary = try FoyerClientConfiguration(address: "127.0.0.1:7400")
        #expect(binary.httpBaseURL == nil)
        #expect(binary.address == "127.0.0.1:7400")
        #expect(throws: FoyerError.invalidInput) { try FoyerClientConfiguration(address: "https://host/v1?x=1") }
        #expect(throws: FoyerError.invalidInput) { try FoyerClientConfiguration(address: "https://") }
    }

    @Test("RFC 3339 times read back to the milliseconds they were written from; other text is refused")
    func rfc3339RoundTrip() {
        let samples: [UInt64] = [0, 1, 951_782_400_123, 1_709_164_800_999, 1_795_000_000_000, 253_402_300_799_999]
        for milliseconds in samples {
            #expect(RFC3339.parseMilliseconds(RFC3339.milliseconds(milliseconds)) == milliseconds)
        }
        #expect(RFC3339.parseMilliseconds("2026-11-24T12:00:00Z") == 1_795_521_600_000)
        #expect(RFC3339.parseMilliseconds("2026-11-24T12:00:00.5Z") == 1_795_521_600_500)
        for text in [
            "", "2026-11-24 12:00:00Z", "2026-13-01T00:00:00Z", "2026-11-24T12:00:00", "2026-11-24T12:00:00.Z",
        ] {
            #expect(RFC3339.parseMilliseconds(text) == nil, "\(text)")
        }
    }

    @Test("JSON numbers are written so that the written bytes parse back to the same bytes (found by the fuzzer)")
    func jsonNumbersAreAFixedPoint() throws {
        let cases: [(text: String, written: String)] = [
            ("[-92233723064587758.008]", "[-92233723064587760]"), ("[1e19]", "[10000000000000000000]"),
            ("[1.5]", "[1.5]"), ("[-0]", "[0]"), ("[-0.0]", "[0]"), ("[2.5e-8]", "[2.5e-08]"),
            ("[18446744073709551615]", "[18446744073709551615]"),
        ]
        for (text, expected) in cases {
            let value = try #require(JSONValue.parse(Array(text.utf8)), "\(text)")
            let written = String(decoding: value.bytes, as: UTF8.self)
            #expect(written == expected, "\(text)")
            let again = try #require(JSONValue.parse(value.bytes))
            #expect(again.bytes == value.bytes, "\(text) is written \(written), which is written again otherwise")
        }
    }

    #if !canImport(Security)
    @Test("On Linux a private CA for HTTPS is refused with a clear error rather than ignored")
    func privateCAOnLinux() async throws {
        var configuration = try FoyerClientConfiguration(address: "https://127.0.0.1:1")
        configuration.tls = FoyerClientConfiguration.TLS(caFile: "/nonexistent/ca.pem")
        try await withFoyerClient(configuration: configuration) { client in
            let refused = await expectError(.invalidInput) { try await client.signInAsGuest() }
            #expect(refused?.message.contains("system's trust store") == true)
        }
    }
    #endif
}

extension HTTPEdge {
    /// Runs `body` with a `FoyerClient` of this edge's HTTP listener, on the stack's clock.
    func withHTTPClient<T: Sendable>(
        adjust: (inout FoyerClientConfiguration) -> Void = { _ in },
        _ body: (FoyerClient) async throws -> T
    ) async throws -> T {
        var configuration = FoyerClientConfiguration(httpBaseURL: try #require(URL(string: baseURL)))
        configuration.now = stack.clock.now
        adjust(&configuration)
        return try await withFoyerClient(
            configuration: configuration,
            logger: TestLogging.logger("foyer.test.client.http"),
            body
        )
    }
}
