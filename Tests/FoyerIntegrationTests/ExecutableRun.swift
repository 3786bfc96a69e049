import Foundation
import FoyerStackProcesses

/// What a built executable did when run once to its end: its exit status and everything it printed.
struct ExecutableRun {
    let status: Int32
    let output: String

    /// Runs the built `executable` with `arguments` in `directory` (its data directory), with none of the test
    /// process's `FOYER_` variables but host 127.0.0.1, port 0 and `environment`, and waits for it to exit. For
    /// start-up checks: the run must end by itself (a refused setting, or a setting that stops it right after the
    /// checks).
    static func run(
        _ executable: String,
        _ arguments: [String],
        in directory: URL,
        environment extra: [String: String] = [:]
    ) throws -> ExecutableRun {
        let process = Process()
        process.executableURL = try StackProcesses.locateExecutables().appendingPathComponent(executable)
        process.arguments = arguments
        var environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("FOYER_") }
        environment["FOYER_DATA_DIR"] = directory.path
        environment["FOYER_HOST"] = "127.0.0.1"
        environment["FOYER_PORT"] = "0"
        environment.merge(extra) { $1 }
        process.environment = environment
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return ExecutableRun(status: process.terminationStatus, output: String(decoding: output, as: UTF8.self))
    }
}
