import Foundation
import FoyerStackProcesses
import FoyerTestSupport
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// examples/web/index.html, served by the gateway (`--example-page`), runs the guest journey with `fetch` in a real
/// headless Chromium. The page is loaded from `http://127.0.0.1:PORT` and calls the API at `http://localhost:PORT`,
/// another origin, so every call goes through CORS: the gateway allows the page's origin and no other.
@Suite("The web example in a real browser")
struct WebExampleTests {
    private struct PageReport: Decodable {
        struct Step: Decodable {
            var ok: Bool
            var text: String
        }
        var status: String
        var result: String
        var steps: [Step]
    }

    private static let repository = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    @Test("guest, 20 notes, the 21st refused, link, accepted, same uid, deleted: every step passes in Chromium")
    func journeyInChromium() async throws {
        let port = try LoopbackPorts.reserve(1)[0]
        let pageOrigin = "http://127.0.0.1:\(port)"
        var options = RunningStackOptions()
        options.environment[.gateway] = [
            "FOYER_HTTP_PORT": String(port),
            "FOYER_CORS_ORIGINS": pageOrigin,
            "FOYER_EXAMPLE_PAGE": Self.repository.appendingPathComponent("examples/web/index.html").path,
        ]
        try await withRunningStack(options) { _ in
            // The stack waits for the binary listener; the HTTP one starts beside it.
            for _ in 0..<200 where !LoopbackPorts.accepts(port) { try await Task.sleep(for: .milliseconds(50)) }
            #expect(LoopbackPorts.accepts(port), "the HTTP listener did not open")
            let output = try await PythonScript.run(
                Self.repository.appendingPathComponent("Tests/http/web_example.py"),
                arguments: ["\(pageOrigin)/example/?api=http://localhost:\(port)&run=1"],
                input: Data(),
                missingPackages: [3: "run `make deps` to install Debian's chromium"],
                timeout: .seconds(240)
            )
            let report = try JSONDecoder().decode(PageReport.self, from: output)
            let failed = report.steps.filter { !$0.ok }.map(\.text)
            #expect(report.status == "passed", "the page says: \(report.result); failed steps: \(failed)")
            #expect(report.steps.count == 9 && failed.isEmpty, "\(report.steps.map(\.text))")
            #expect(report.steps.contains { $0.text.hasPrefix("note 21 refused: quota-exceeded, 20 of 20 used") })
        }
    }

    @Test("A guest sign-up over the address's limit: the page says so and how long to wait")
    func signupLimitShowsTheWait() async throws {
        let port = try LoopbackPorts.reserve(1)[0]
        let pageOrigin = "http://127.0.0.1:\(port)"
        var options = RunningStackOptions()
        options.environment[.gateway] = [
            "FOYER_HTTP_PORT": String(port),
            "FOYER_CORS_ORIGINS": pageOrigin,
            "FOYER_EXAMPLE_PAGE": Self.repository.appendingPathComponent("examples/web/index.html").path,
        ]
        options.environment[.guestQuota] = ["FOYER_SIGNUPS_PER_HOUR": "1"]
        try await withRunningStack(options) { _ in
            for _ in 0..<200 where !LoopbackPorts.accepts(port) { try await Task.sleep(for: .milliseconds(50)) }
            #expect(LoopbackPorts.accepts(port), "the HTTP listener did not open")
            // The address's one sign-up of the hour, taken before the page asks for its own.
            var request = URLRequest(url: try #require(URL(string: "\(pageOrigin)/v1/guests")))
            request.httpMethod = "POST"
            let key = Data((0..<16).map { _ in UInt8.random(in: 0...255) }).base64EncodedString()
                .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
                .replacingOccurrences(of: "=", with: "")
            request.setValue(key, forHTTPHeaderField: "Idempotency-Key")
            let (_, first) = try await URLSession.shared.data(for: request)
            #expect((first as? HTTPURLResponse)?.statusCode == 201)

            let output = try await PythonScript.run(
                Self.repository.appendingPathComponent("Tests/http/web_example.py"),
                arguments: ["\(pageOrigin)/example/?api=http://localhost:\(port)&run=1"],
                input: Data(),
                missingPackages: [3: "run `make deps` to install Debian's chromium"],
                timeout: .seconds(240)
            )
            let report = try JSONDecoder().decode(PageReport.self, from: output)
            #expect(report.status == "failed")
            #expect(report.result.hasPrefix("failed: signup-rate-limited"), "the page says: \(report.result)")
            #expect(report.result.contains("try again in "), "the page says: \(report.result)")
        }
    }
}
