import Foundation
import FoyerClient
import FoyerTestSupport
import Testing

extension RunningStack {
    /// The gateway's admin listener (served when the stack was started with ``RunningStackOptions/gatewayAdmin``).
    var adminBaseURL: String { "http://127.0.0.1:\(processes.adminPort)" }

    /// A new admin key named `name`, made by `foyer admin bootstrap-key` with the stack's cluster secret and read
    /// back from the file it was saved to.
    func bootstrapAdminKey(name: String = "tests") async throws -> String {
        let file = directory.appendingPathComponent("admin-key-\(UUID().uuidString)")
        _ = try await foyer([
            "admin", "bootstrap-key", "--name", name, "--save-to", file.path,
            "--identity", "127.0.0.1:\(processes.port(of: .identity))",
            "--cluster-secret-file", processes.configuration.clusterSecretFile.path,
        ])
        let key = try String(contentsOf: file, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        let permissions = try FileManager.default.attributesOfItem(atPath: file.path)[.posixPermissions] as? Int
        #expect(permissions == 0o600, "the saved admin key is readable by others: \(String(describing: permissions))")
        return key
    }

    /// A client of the admin API with `key`; the caller shuts it down.
    func adminClient(key: String) -> FoyerAdminClient {
        FoyerAdminClient(baseURL: URL(string: adminBaseURL)!, key: key, callTimeout: .seconds(60))
    }

    /// Runs the `foyer` built beside the services with `arguments`, the environment without any FOYER_ variable
    /// plus `environment`; returns its stdout, and fails with its stderr when it exits non-zero.
    func foyer(_ arguments: [String], environment: [String: String] = [:]) async throws -> String {
        let process = Process()
        process.executableURL = processes.configuration.binDirectory.appendingPathComponent("foyer")
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("FOYER_") }
            .merging(environment) { $1 }
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        let status: Int32 = try await withCheckedThrowingContinuation { continuation in
            process.terminationHandler = { continuation.resume(returning: $0.terminationStatus) }
            do {
                try process.run()
            } catch {
                continuation.resume(throwing: error)
            }
        }
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        guard status == 0 else {
            let problem = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            throw FoyerCommandFailure(arguments: arguments, status: status, output: text + problem)
        }
        return text
    }
}

/// `foyer` exited non-zero.
struct FoyerCommandFailure: Error, CustomStringConvertible {
    let arguments: [String]
    let status: Int32
    /// Its stdout, then its stderr.
    let output: String
    var description: String { "foyer \(arguments.joined(separator: " ")) exited \(status): \(output)" }
}
