import Foundation
import Testing

@Suite("foyer load")
struct LoadCommandTests {
    /// Every request of one guest journey: sign-in, 20 writes, the refused 21st, link, a member's write, delete.
    static let journeyRequests = 25

    private func load(_ stack: Stack, _ arguments: [String]) async throws -> CLI.Result {
        try await CLI.run(["load", "--gateway", "127.0.0.1:\(stack.gatewayPort)"] + arguments)
    }

    private func count(_ object: Any?, _ key: String) -> Int? {
        (object as? [String: Any])?[key] as? Int
    }

    @Test("guest-journey runs with no errors, counts the quota's refusals as outcomes and writes an HTML chart")
    func guestJourney() async throws {
        var options = StackOptions()
        options.loadTestSources = true
        try await withStack(options: options) { stack in
            let chart = stack.directory.appendingPathComponent("journey.html").path
            let result = try await load(
                stack,
                ["--scenario", "guest-journey", "--requests", "50", "--concurrency", "2", "--json", "--report", chart]
            )
            #expect(result.status == 0, "foyer load failed: \(result.stdout) \(result.stderr)")
            #expect(result.stderr.isEmpty)
            let report = try result.output()

            // Each iteration runs to its end: the bound stops new ones only.
            let iterations = try #require(report["iterations"] as? Int)
            #expect((2...4).contains(iterations))
            #expect(report["failedIterations"] as? Int == 0)
            #expect(report["errors"] as? Int == 0)
            #expect((report["errorsByStatus"] as? [String: Any])?.isEmpty == true)
            #expect(report["requests"] as? Int == iterations * Self.journeyRequests)
            #expect(report["outcomes"] as? Int == iterations)
            #expect(count(report["outcomesByStatus"], "quota-exceeded") == iterations)
            #expect(report["stoppedEarly"] is NSNull)
            #expect(report["requestLimit"] as? Int == 50)

            let operations = try #require(report["operations"] as? [[String: Any]])
            let byName = Dictionary(
                uniqueKeysWithValues: operations.compactMap { operation in
                    (operation["operation"] as? String).map { ($0, operation) }
                }
            )
            #expect(byName.keys.sorted() == ["delete-account", "guest-sign-in", "link", "put"])
            #expect(byName["put"]?["requests"] as? Int == iterations * 22)
            #expect(count(byName["put"]?["outcomes"], "quota-exceeded") == iterations)
            for name in ["guest-sign-in", "link", "delete-account"] {
                #expect(byName[name]?["requests"] as? Int == iterations, "\(name)")
            }
            let latency = try #require(byName["put"]?["latencyMs"] as? [String: Any])
            let p50 = try #require(latency["p50"] as? Double)
            let p999 = try #require(latency["p99.9"] as? Double)
            let max = try #require(latency["max"] as? Double)
            #expect(p50 > 0 && p50 <= p999 && p999 <= max)

            let timeline = try #require(report["timeline"] as? [[String: Any]])
            #expect(timeline.reduce(0) { $0 + (($1["requests"] as? Int) ?? 0) } == iterations * Self.journeyRequests)

            #expect(report["chart"] as? String == chart)
            let page = try String(contentsOfFile: chart, encoding: .utf8)
            #expect(page.hasPrefix("<!DOCTYPE html>"))
            #expect(page.contains("<svg"))
            #expect(page.contains("data-series=\"requests/s\""))
            #expect(page.contains("data-series=\"p99 ms\""))
            #expect(!page.contains("<script"))
        }
    }

    /// read-write's members; merge's go through the same `deleteMember`, but two of them taking 50 links a second
    /// trip identity's per-account password throttle, which a real run (a member per virtual user) does not.
    @Test(
        "members made at the start of a run longer than the step-up window sign in again to delete themselves at its end"
    )
    func membersDeletedAfterTheWindow() async throws {
        let scenario = "read-write"
        var options = StackOptions()
        options.loadTestSources = true
        options.recentSignInWindow = .seconds(1)
        try await withStack(options: options) { stack in
            let result = try await load(
                stack,
                ["--scenario", scenario, "--duration", "2s", "--concurrency", "2", "--json"]
            )
            #expect(result.status == 0, "foyer load failed: \(result.stdout) \(result.stderr)")
            let report = try result.output()
            #expect(
                report["errors"] as? Int == 0,
                "\(String(describing: report["errorsByStatus"])) \(String(describing: report["operations"]))"
            )
            let operations = try #require(report["operations"] as? [[String: Any]])
            let byName = Dictionary(
                uniqueKeysWithValues: operations.compactMap { operation in
                    (operation["operation"] as? String).map { ($0, operation) }
                }
            )
            #expect(byName["sign-in"]?["requests"] as? Int == 2)
            #expect(byName["delete-account"]?["requests"] as? Int == 2)
        }
    }

    @Test("the table report and an SVG chart")
    func tableAndSVG() async throws {
        var options = StackOptions()
        options.loadTestSources = true
        try await withStack(options: options) { stack in
            let chart = stack.directory.appendingPathComponent("signup.svg").path
            let result = try await load(
                stack,
                ["--scenario", "guest-signup", "--requests", "20", "--concurrency", "4", "--report", chart]
            )
            #expect(result.status == 0, "foyer load failed: \(result.stdout) \(result.stderr)")
            #expect(result.stdout.hasPrefix("foyer load guest-signup: 4 virtual users over 4 connections"))
            #expect(result.stdout.contains("errors by status: none"))
            let rows = result.stdout.split(separator: "\n").map { $0.split(separator: " ") }
            #expect(rows.contains { $0.first == "guest-sign-in" })
            #expect(rows.contains { $0.first == "sign-out" })

            let svg = try String(contentsOfFile: chart, encoding: .utf8)
            #expect(svg.hasPrefix("<svg xmlns=\"http://www.w3.org/2000/svg\""))
            #expect(svg.hasSuffix("</svg>\n"))
            for series in ["requests/s", "errors/s", "p50 ms", "p99 ms"] {
                #expect(svg.contains("data-series=\"\(series)\""), "\(series)")
            }
        }
    }

    @Test("a gateway that counts every sign-up against one address stops the run with how to fix it")
    func loadTestSourcesOff() async throws {
        try await withStack { stack in
            let result = try await load(
                stack,
                ["--scenario", "guest-signup", "--requests", "200", "--concurrency", "1", "--json"]
            )
            #expect(result.status == 1)
            let report = try result.output()
            let reason = try #require(report["stoppedEarly"] as? String)
            #expect(reason.contains("--load-test-sources"))
            #expect(reason.contains("FOYER_LOAD_TEST_SOURCES=1"))
            #expect(count(report["errorsByStatus"], "signup-rate-limited") == 1)
            #expect((report["requests"] as? Int ?? 0) < 200)
        }
    }

    @Test(
        "bad options are refused before anything runs",
        arguments: [
            (["--scenario", "stampede"], "guest-signup, guest-journey"),
            (["--scenario", "refresh", "--duration", "30"], "needs a unit"),
            (["--scenario", "refresh", "--requests", "0"], "--requests"),
            (["--scenario", "refresh", "--concurrency", "0"], "--concurrency"),
            (["--scenario", "refresh", "--requests", "5", "--report", "chart.png"], ".html or .svg"),
        ]
    )
    func refusals(arguments: [String], message: String) async throws {
        let result = try await CLI.run(["load", "--gateway", "127.0.0.1:1"] + arguments)
        #expect(result.status == 1)
        #expect(result.stdout.isEmpty)
        let error = try result.error()
        #expect(error["error"] as? String == "invalid-input")
        #expect((error["message"] as? String)?.contains(message) == true, "\(error)")
    }
}
