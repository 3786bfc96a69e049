import Foundation
import FoyerClient
import FoyerRPC
import FoyerStackProcesses
import FoyerTestSupport
import Testing

/// The five real executables with mutual TLS between them: each has the cluster CA (`FOYER_TLS_CA`) and a certificate
/// of its own made by `scripts/make-dev-certs.sh`; internal listeners demand a client certificate signed by the CA,
/// the gateway's listener speaks TLS to clients without asking them for one. Certificates reload on SIGHUP.
@Suite("Mutual TLS between the real executables")
struct MutualTLSTests {
    private static let internalServices: [StackService] = [.identity, .guestQuota, .userData, .cleanup]

    @Test("The journey (guest, put, link, get, delete the account) runs with mutual TLS between every service")
    func journey() async throws {
        try await withMutualTLSStack { stack, _ in
            try await guestJourney(stack)
            try await deleteEverythingJourney(stack)
        }
    }

    @Test("Internal listeners refuse peers without a client certificate of the cluster's CA, and let its holders in")
    func clientCertificateRequired() async throws {
        let stranger = try DevCertificates.make(names: ["gateway"])
        defer { stranger.remove() }
        try await withMutualTLSStack { stack, certificates in
            let secret = try FoyerCleanupClient.loadSecret(
                path: stack.processes.configuration.clusterSecretFile.path,
                environment: [:]
            )
            let trusted = RPCClientTLS(trustRoots: .caFile(certificates.caFile))
            var member = trusted
            member.certificate = certificates.certificate(named: "gateway")
            var outsider = trusted
            outsider.certificate = stranger.certificate(named: "gateway")
            for service in Self.internalServices {
                let port = stack.processes.port(of: service)
                let name = service.rawValue
                #expect(await HealthProbe.serves(port: port, service: name, secret: secret, tls: member))
                #expect(await !HealthProbe.serves(port: port, service: name, secret: secret, tls: trusted))
                #expect(await !HealthProbe.serves(port: port, service: name, secret: secret, tls: outsider))
                #expect(await !HealthProbe.serves(port: port, service: name, secret: secret, tls: nil))
            }
            // The operator's client (`foyer cleanup status --tls-ca --tls-certificate --tls-key`) gets in with one.
            for (tls, admitted) in [(member, true), (trusted, false)] {
                let cleanup = FoyerCleanupClient(
                    host: "127.0.0.1",
                    port: stack.processes.port(of: .cleanup),
                    secret: secret,
                    callTimeout: .seconds(30),
                    tls: tls,
                    logger: TestLogging.logger("foyer.test.cleanup-client")
                )
                let status = try? await cleanup.status()
                await cleanup.shutdown()
                #expect((status != nil) == admitted)
            }
            // `foyer outbox` and `foyer cleanup status` take the same three options.
            let secretFile = stack.processes.configuration.clusterSecretFile.path
            let operatorFiles = certificates.certificate(named: "gateway")
            let withCertificate = [
                "--tls-ca", certificates.caFile, "--tls-certificate", operatorFiles.certificatePath,
                "--tls-key", operatorFiles.keyPath,
            ]
            let identity = "127.0.0.1:\(stack.processes.port(of: .identity))"
            let cleanup = "127.0.0.1:\(stack.processes.port(of: .cleanup))"
            let outbox = ["outbox", "--identity", identity, "--cluster-secret-file", secretFile]
            let status = ["cleanup", "status", "--cleanup", cleanup, "--secret-file", secretFile]
            #expect(try await foyer(outbox + withCertificate, stack) == 0)
            #expect(try await foyer(status + withCertificate, stack) == 0)
            #expect(try await foyer(status + ["--tls-ca", certificates.caFile], stack) != 0)
            #expect(try await foyer(status, stack) != 0)
        }
    }

    @Test("SIGHUP: a new connection gets the reissued certificate; a bad file is logged and the old one kept")
    func reloadOnSIGHUP() async throws {
        try await withMutualTLSStack { stack, certificates in
            let port = stack.processes.port(of: .identity)
            let files = certificates.certificate(named: "identity")
            var tls = RPCClientTLS(trustRoots: .caFile(certificates.caFile))
            tls.certificate = certificates.certificate(named: "gateway")
            let first = try ServedCertificate.serialNumber(ofPEMFile: files.certificatePath)
            #expect(try await ServedCertificate.serialNumber(host: "127.0.0.1", port: port, tls: tls) == first)

            try Data("not a certificate\n".utf8).write(to: URL(fileURLWithPath: files.certificatePath))
            try await stack.reloadCertificates(of: .identity, context: "listener", awaiting: "TLS reload failed")
            #expect(try await ServedCertificate.serialNumber(host: "127.0.0.1", port: port, tls: tls) == first)

            try certificates.reissue(names: ["identity"])
            let renewed = try ServedCertificate.serialNumber(ofPEMFile: files.certificatePath)
            #expect(renewed != first)
            try await stack.reloadCertificates(
                of: .identity,
                context: "listener",
                awaiting: "reloaded TLS certificates"
            )
            #expect(try await ServedCertificate.serialNumber(host: "127.0.0.1", port: port, tls: tls) == renewed)
            // The gateway still reaches identity (its pooled connection, or a new one that verifies the new one).
            try await stack.withClient { client async throws in
                #expect(try await client.signInAsGuest().isAnonymous)
            }
        }
    }

    /// Runs the `foyer` built beside the services with `arguments` (and no FOYER_ variable) and returns its exit
    /// status.
    private func foyer(_ arguments: [String], _ stack: RunningStack) async throws -> Int32 {
        let process = Process()
        process.executableURL = stack.processes.configuration.binDirectory.appendingPathComponent("foyer")
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("FOYER_") }
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        return try await withCheckedThrowingContinuation { continuation in
            process.terminationHandler = { continuation.resume(returning: $0.terminationStatus) }
            do {
                try process.run()
            } catch {
                continuation.resume(throwing: error)
            }
        }
    }

    /// Runs `body` on a stack with mutual TLS: a new CA and a certificate per service (named after it).
    private func withMutualTLSStack(
        _ body: (RunningStack, DevCertificates) async throws -> Void
    ) async throws {
        let certificates = try DevCertificates.make(names: StackService.allCases.map(\.rawValue))
        defer { certificates.remove() }
        var options = RunningStackOptions()
        options.tls = StackTLS(caFile: certificates.caFile) { service in
            let files = certificates.certificate(named: service.rawValue)
            return (files.certificatePath, files.keyPath)
        }
        // The reload test reads identity's info lines.
        options.environment[.identity] = ["FOYER_LOG_LEVEL": "info"]
        try await withRunningStack(options) { stack in try await body(stack, certificates) }
    }
}
