import Foundation
import Synchronization
import Testing

/// Runs the built `foyer` executable as a subprocess.
enum CLI {
    struct Result: Sendable {
        let status: Int32
        let stdout: String
        let stderr: String

        /// stdout as one JSON object.
        func output() throws -> [String: Any] { try Self.object(stdout, "stdout") }
        /// stderr as one JSON object (the error).
        func error() throws -> [String: Any] { try Self.object(stderr, "stderr") }

        private static func object(_ text: String, _ stream: String) throws -> [String: Any] {
            let lines = text.split(separator: "\n", omittingEmptySubsequences: true)
            guard lines.count == 1, let data = lines[0].data(using: .utf8),
                let object = try JSONSerialization.jsonObject(with: data) as? [String: Any]
            else {
                throw CLIFailure("\(stream) is not one JSON object on one line: \(text)")
            }
            return object
        }
    }

    struct CLIFailure: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    /// The `foyer` built next to this test bundle (FOYER_CLI_PATH overrides).
    static let executable: URL? = {
        if let path = ProcessInfo.processInfo.environment["FOYER_CLI_PATH"] { return URL(fileURLWithPath: path) }
        var starts: [URL] = [Bundle.main.bundleURL]
        if let url = Bundle.main.executableURL { starts.append(url) }
        starts.append(URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath())
        if let first = CommandLine.arguments.first { starts.append(URL(fileURLWithPath: first)) }
        for start in starts {
            var directory = start.deletingLastPathComponent()
            for _ in 0..<4 {
                let candidate = directory.appendingPathComponent("foyer")
                if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
                directory = directory.deletingLastPathComponent()
            }
        }
        return nil
    }()

    /// Runs `foyer arguments…` with the environment cleared of FOYER_* settings except `environment`, and waits
    /// for it to exit without blocking a thread of the cooperative pool (the in-process stack needs them).
    static func run(_ arguments: [String], environment: [String: String] = [:]) async throws -> Result {
        guard let executable else {
            throw CLIFailure(
                "the foyer executable was not found next to the test bundle; build it (swift build --product foyer) or set FOYER_CLI_PATH"
            )
        }
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("foyer-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let outURL = scratch.appendingPathComponent("stdout")
        let errURL = scratch.appendingPathComponent("stderr")
        _ = FileManager.default.createFile(atPath: outURL.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errURL.path, contents: nil)
        let out = try FileHandle(forWritingTo: outURL)
        let err = try FileHandle(forWritingTo: errURL)
        defer {
            try? out.close()
            try? err.close()
        }
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        var inherited = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("FOYER_") }
        inherited.merge(environment) { $1 }
        process.environment = inherited
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        let status: Int32 = try await withCheckedThrowingContinuation { continuation in
            process.terminationHandler = { continuation.resume(returning: $0.terminationStatus) }
            do {
                try process.run()
            } catch {
                process.terminationHandler = nil
                continuation.resume(throwing: error)
            }
        }
        let result = Result(
            status: status,
            stdout: (try? String(contentsOf: outURL, encoding: .utf8)) ?? "",
            stderr: (try? String(contentsOf: errURL, encoding: .utf8)) ?? ""
        )
        transcribe(arguments, result)
        return result
    }

    /// With FOYER_CLI_TRANSCRIPT=path, every run is appended to that file (for reading what the commands print).
    private static func transcribe(_ arguments: [String], _ result: Result) {
        guard let path = ProcessInfo.processInfo.environment["FOYER_CLI_TRANSCRIPT"] else { return }
        let entry =
            "$ foyer \(arguments.joined(separator: " "))\n\(result.stdout)\(result.stderr)# exit \(result.status)\n\n"
        transcriptLock.withLock { _ in
            if let handle = FileHandle(forWritingAtPath: path) {
                handle.seekToEndOfFile()
                handle.write(Data(entry.utf8))
                try? handle.close()
            } else {
                _ = FileManager.default.createFile(atPath: path, contents: Data(entry.utf8))
            }
        }
    }

    private static let transcriptLock = Mutex(())
}

extension Stack {
    /// A session file path in the stack's directory.
    func sessionFile(_ name: String) -> String {
        directory.appendingPathComponent("\(name).session.json").path
    }
}
