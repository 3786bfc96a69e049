import FoyerClient
import FoyerStackProcesses
import FoyerTestSupport
import Testing

/// The real gateway executable given `FOYER_TLS_CERTIFICATE` and `FOYER_TLS_KEY` (a CA made for the test by
/// `scripts/make-dev-certs.sh`): the stack starts only once `gateway --check-health` passes over TLS, and clients
/// reach it through TLS and only through TLS.
@Suite("The gateway executable's binary listener over TLS")
struct GatewayTLSTests {
    @Test("--check-health and FoyerClient speak TLS to a gateway with a certificate; plaintext gets nowhere")
    func guestOverTLS() async throws {
        let certificates = try DevCertificates.make()
        defer { certificates.remove() }
        var options = RunningStackOptions()
        options.environment[.gateway] = [
            "FOYER_TLS_CERTIFICATE": certificates.server.certificatePath,
            "FOYER_TLS_KEY": certificates.server.keyPath,
        ]
        let logger = TestLogging.logger("foyer.test.client")
        try await withRunningStack(options) { stack in
            var configuration = FoyerClientConfiguration(host: "127.0.0.1", port: stack.processes.port(of: .gateway))
            configuration.maxAttempts = 1
            configuration.tls = .init(caFile: certificates.caFile)
            try await withFoyerClient(configuration: configuration, logger: logger) { client in
                let guest = try await client.signInAsGuest()
                #expect(guest.isAnonymous)
                try await client.put("notes", "first", "over TLS")
                #expect(try await client.get("notes", "first")?.text == "over TLS")
            }
            configuration.tls = nil
            _ = try await withFoyerClient(configuration: configuration, logger: logger) { client in
                await #expect(throws: FoyerError.self) { try await client.signInAsGuest() }
            }
        }
    }
}
