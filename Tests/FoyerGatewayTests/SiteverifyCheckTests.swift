import Foundation
import FoyerAPI
import FoyerTestSupport
import FoyerWebhooks
import NIOCore
import NIOPosix
import Testing

@testable import FoyerGateway

/// The siteverify check against a fake verifier on loopback, started by each test.
@Suite("The siteverify sign-up check")
struct SiteverifyCheckTests {
    private let now = Date(timeIntervalSince1970: 1_800_000_000)

    private func check(_ url: String, timeout: Duration = .seconds(5)) -> SiteverifyCheck {
        var settings = SiteverifySettings(url: URL(string: url)!, secret: "s3cret&=+ value")
        settings.timeout = timeout
        return SiteverifyCheck(settings: settings, http: URLSessionHTTPClient())
    }

    /// The form fields of a request body (`application/x-www-form-urlencoded`).
    private static func form(_ body: [UInt8]) -> [String: String] {
        var fields: [String: String] = [:]
        for pair in String(decoding: body, as: UTF8.self).split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false).map {
                String($0).replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? ""
            }
            fields[parts[0]] = parts.count > 1 ? parts[1] : ""
        }
        return fields
    }

    /// A verifier that passes the token "good" and refuses any other, as the providers answer.
    private static func verifier(_ request: LoopbackHTTPServer.Request) -> LoopbackHTTPServer.Response {
        let fields = form(request.body)
        let answer =
            fields["response"] == "good"
            ? #"{"success":true,"challenge_ts":"2026-11-28T00:00:00Z","hostname":"example.com","error-codes":[]}"#
            : #"{"success":false,"error-codes":["invalid-input-response"]}"#
        return LoopbackHTTPServer.Response(headers: ["content-type": "application/json"], body: Array(answer.utf8))
    }

    @Test("A good token passes: the form carries the secret, the token and the client's address")
    func success() async throws {
        try await withLoopbackHTTPServer(Self.verifier) { server in
            let check = check(server.url("/siteverify"))
            let outcome = await check.verify(
                .siteverify(token: "good"),
                idempotencyKey: "key-one",
                source: "203.0.113.9",
                now: now
            )
            #expect(outcome == .passed)
            let request = try #require(server.requests.first)
            #expect(request.method == "POST")
            #expect(request.path == "/siteverify")
            #expect(request.headers["content-type"] == "application/x-www-form-urlencoded")
            #expect(
                Self.form(request.body)
                    == ["secret": "s3cret&=+ value", "response": "good", "remoteip": "203.0.113.9"]
            )
            // A retry under the same key passes without asking again; another key is refused.
            #expect(
                await check.verify(.siteverify(token: "good"), idempotencyKey: "key-one", source: "x", now: now)
                    == .passed
            )
            #expect(
                await check.verify(.siteverify(token: "good"), idempotencyKey: "key-two", source: "x", now: now)
                    == .refused("the token was already used; get a new one")
            )
            #expect(server.requests.count == 1)
        }
    }

    @Test("A refused token is refused with the verifier's error codes")
    func failure() async throws {
        try await withLoopbackHTTPServer(Self.verifier) { server in
            let outcome = await check(server.url("/siteverify")).verify(
                .siteverify(token: "bad"),
                idempotencyKey: "k",
                source: "unknown",
                now: now
            )
            #expect(outcome == .refused("the sign-up verifier refused the token (invalid-input-response)"))
            // No address known: no remoteip.
            #expect(server.requests.first.map { Self.form($0.body)["remoteip"] } == .some(nil))
        }
    }

    @Test("The deployment's secret refused by the verifier is unavailable, not the client's failure")
    func secretRefused() async throws {
        let answer = #"{"success":false,"error-codes":["invalid-input-secret"]}"#
        try await withLoopbackHTTPServer({ _ in .init(body: Array(answer.utf8)) }) { server in
            let outcome = await check(server.url("/")).verify(
                .siteverify(token: "t"),
                idempotencyKey: "k",
                source: "s",
                now: now
            )
            #expect(outcome == .unavailable("the sign-up verifier refused this deployment's secret; try again later"))
        }
    }

    @Test("A malformed answer, or an HTTP error, is unavailable: never admitted")
    func malformed() async throws {
        for (status, body) in [(200, "not json"), (200, #"{"ok":true}"#), (200, #"{"success":"yes"}"#), (500, "{}")] {
            try await withLoopbackHTTPServer({ _ in .init(status: status, body: Array(body.utf8)) }) { server in
                let outcome = await check(server.url("/")).verify(
                    .siteverify(token: "t"),
                    idempotencyKey: "k",
                    source: "s",
                    now: now
                )
                guard case .unavailable = outcome else {
                    Issue.record("\(status) \(body) answered \(outcome)")
                    return
                }
            }
        }
    }

    @Test("A verifier that never answers is unavailable after the timeout")
    func timeout() async throws {
        // Accepts connections and never answers.
        let silent = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .childChannelInitializer { $0.eventLoop.makeSucceededVoidFuture() }
            .bind(host: "127.0.0.1", port: 0).get()
        let port = try #require(silent.localAddress?.port)
        let started = ContinuousClock.now
        let outcome = await check("http://127.0.0.1:\(port)/", timeout: .seconds(1)).verify(
            .siteverify(token: "t"),
            idempotencyKey: "k",
            source: "s",
            now: now
        )
        try await silent.close()
        #expect(outcome == .unavailable("the sign-up verifier did not answer; try again later"))
        let waited = ContinuousClock.now - started
        #expect(waited >= .milliseconds(900) && waited < .seconds(10), "waited \(waited)")
    }

    @Test("An unreachable verifier is unavailable")
    func unreachable() async throws {
        let server = try await LoopbackHTTPServer.start(Self.verifier)
        let url = server.url("/siteverify")
        try await server.stop()
        let outcome = await check(url).verify(.siteverify(token: "good"), idempotencyKey: "k", source: "s", now: now)
        #expect(outcome == .unavailable("the sign-up verifier did not answer; try again later"))
    }

    @Test("No token, or a proof of another kind, is missing, and the verifier is not asked")
    func missing() async throws {
        try await withLoopbackHTTPServer(Self.verifier) { server in
            let check = check(server.url("/"))
            #expect(await check.verify(nil, idempotencyKey: "k", source: "s", now: now) == .missing)
            let work = SignUpProof.proofOfWork(challenge: [1], nonce: [1])
            #expect(await check.verify(work, idempotencyKey: "k", source: "s", now: now) == .missing)
            #expect(server.requests.isEmpty)
        }
    }
}
