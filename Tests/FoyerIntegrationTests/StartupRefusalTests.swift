import Foundation
import FoyerStackProcesses
import Testing

/// The built executables refuse, at start, settings that would expose or break something: an admin listener on a
/// public address in plain HTTP, a guest TTL shorter than identity's activity-recording interval; and they parse
/// their flags under the names the docs give.
@Suite("Executables refuse unsafe settings at start")
struct StartupRefusalTests {
    /// Runs `executable` with `arguments`, no `FOYER_` variable and a fresh data directory.
    private func run(_ executable: String, _ arguments: [String]) throws -> ExecutableRun {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "foyer-start-\(UUID().uuidString)"
        )
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        return try ExecutableRun.run(executable, arguments, in: directory)
    }

    @Test("The gateway refuses a non-loopback --admin-host unless --admin-insecure is given")
    func adminHostMustBeLoopback() throws {
        let refused = try run("gateway", ["--admin-port", "0", "--admin-host", "0.0.0.0"])
        #expect(refused.status != 0)
        #expect(refused.output.contains("is not a loopback address"), "\(refused.output)")
        // With the flag it gets past the check, and stops only at the invalid setting read right after it.
        let allowed = try run(
            "gateway",
            [
                "--admin-port", "0", "--admin-host", "0.0.0.0", "--admin-insecure", "--first-request-timeout-seconds",
                "0",
            ]
        )
        #expect(allowed.status != 0)
        #expect(!allowed.output.contains("is not a loopback address"), "\(allowed.output)")
        #expect(allowed.output.contains("--first-request-timeout-seconds"), "\(allowed.output)")
    }

    @Test("cleanup refuses a guest TTL under identity's 10-minute activity-recording interval")
    func shortTTLRefused() throws {
        let refused = try run("cleanup", ["--ttl-seconds", "599"])
        #expect(refused.status != 0)
        #expect(refused.output.contains("the guest TTL must be at least 10 minutes"), "\(refused.output)")
    }

    @Test("identity's webhook endpoints are --webhook-urls, the documented name")
    func webhookURLsFlag() throws {
        let help = try run("identity", ["--help"])
        #expect(help.output.contains("--webhook-urls <webhook-urls>"), "\(help.output)")
        #expect(!help.output.contains("ur-ls"))
        // Parsed under that name: the start gets to the check that it needs a secret file.
        let parsed = try run("identity", ["--webhook-urls", "https://app.example/events"])
        #expect(parsed.status != 0)
        #expect(parsed.output.contains("--webhook-urls needs --webhook-secret-file"), "\(parsed.output)")
    }

    @Test(
        "identity and the gateway refuse an issuer that is not an https URL (http only on loopback), and identity an unknown --signing-algorithm",
        arguments: ["identity", "gateway"]
    )
    func issuerMustBeAURL(executable: String) throws {
        for issuer in ["foyer", "http://auth.example.com", "https://auth.example.com/", "https://auth.example.com?x=1"]
        {
            let refused = try run(executable, ["--issuer", issuer])
            #expect(refused.status != 0)
            #expect(refused.output.contains("the issuer \(issuer)"), "\(refused.output)")
        }
        if executable == "identity" {
            let refused = try run(executable, ["--signing-algorithm", "HS256"])
            #expect(refused.status != 0)
            #expect(refused.output.contains("--signing-algorithm"), "\(refused.output)")
        }
    }
}
