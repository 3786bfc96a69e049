import Foundation
import FoyerRPC
import FoyerTestSupport
import Testing

/// `Tests/http/journey.py` once more, over HTTPS: the real gateway executable given `FOYER_TLS_CERTIFICATE` and
/// `FOYER_TLS_KEY` (a CA made for the test by `scripts/make-dev-certs.sh`) serves its HTTP listener with TLS, and
/// the script (Python's urllib and PyJWT's PyJWKClient, trusting that CA through `--ca-file`) walks the whole
/// journey and every documented operation through it.
@Suite("The journey over HTTPS, from outside (SQLite)")
struct HTTPJourneyTLSTests {
    /// What the script prints on stdout when the journey passed.
    private struct Summary: Decodable {
        var passed: Bool
        var uid: String
        var email: String
        var mergedGuest: String
    }

    /// `Tests/http/journey.py`, next to this target's folder.
    private static let script = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("http").appendingPathComponent("journey.py")

    /// A stack whose gateway serves HTTPS with the dev certificate.
    private static func httpsGateway(_ certificates: DevCertificates) -> RunningStackOptions {
        var options = RunningStackOptions(gatewayHTTP: true)
        options.environment[.gateway] = [
            "FOYER_TLS_CERTIFICATE": certificates.server.certificatePath,
            "FOYER_TLS_KEY": certificates.server.keyPath,
        ]
        return options
    }

    @Test("the HTTP journey over TLS against the gateway executable with a certificate")
    func journeyOverTLS() async throws {
        let certificates = try DevCertificates.make()
        defer { certificates.remove() }
        try await withRunningStack(Self.httpsGateway(certificates)) { stack in
            let baseURL = "https://127.0.0.1:\(stack.processes.httpPort)"
            let output = try await PythonScript.run(
                Self.script,
                arguments: [baseURL, "--ca-file", certificates.caFile],
                input: Data(),
                missingPackages: [3: "run `make deps` to install PyYAML, PyJWT and openapi-spec-validator"],
                timeout: .seconds(300)
            )
            let summary = try JSONDecoder().decode(Summary.self, from: output)
            #expect(summary.passed)
            try await expectGone(summary.uid, emails: [summary.email], stack)
            try await expectGone(summary.mergedGuest, stack)
        }
    }

    @Test("SIGHUP: a new HTTPS connection gets the reissued certificate; a bad file is logged and the old one kept")
    func reloadOnSIGHUP() async throws {
        let certificates = try DevCertificates.make()
        defer { certificates.remove() }
        var options = Self.httpsGateway(certificates)
        // The reload's success is an info line.
        options.environment[.gateway]?["FOYER_LOG_LEVEL"] = "info"
        try await withRunningStack(options) { stack in
            let files = certificates.server
            func served() async throws -> ServedCertificate.HTTPSAnswer {
                try await ServedCertificate.https(
                    host: "127.0.0.1",
                    port: stack.processes.httpPort,
                    path: "/healthz",
                    tls: RPCClientTLS(trustRoots: .caFile(certificates.caFile))
                )
            }
            let first = try ServedCertificate.serialNumber(ofPEMFile: files.certificatePath)
            let before = try await served()
            #expect(before.serialNumber == first)
            #expect(before.statusLine.hasPrefix("HTTP/1.1 200"))

            // A file that is not a certificate: logged, the old pair still served, the listener still answers.
            try Data("not a certificate\n".utf8).write(to: URL(fileURLWithPath: files.certificatePath))
            try await stack.reloadCertificates(of: .gateway, context: "http", awaiting: "TLS reload failed")
            let kept = try await served()
            #expect(kept.serialNumber == first)
            #expect(kept.statusLine.hasPrefix("HTTP/1.1 200"))

            try certificates.reissue(names: [])
            let renewed = try ServedCertificate.serialNumber(ofPEMFile: files.certificatePath)
            #expect(renewed != first)
            try await stack.reloadCertificates(of: .gateway, context: "http", awaiting: "reloaded TLS certificates")
            let after = try await served()
            #expect(after.serialNumber == renewed)
            #expect(after.statusLine.hasPrefix("HTTP/1.1 200"))
        }
    }
}
