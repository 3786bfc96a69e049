public import Foundation

extension StackProcesses {
    /// The directory with the built executables: `FOYER_BIN_DIR` if set, else the first directory at or above the
    /// running program (a test bundle in `.build/debug`, or `foyer-bench` itself) that holds all five.
    ///
    /// - Throws: ``StackProcessesError/executablesMissing`` saying how to build them.
    public static func locateExecutables(
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws -> URL {
        if let path = environment["FOYER_BIN_DIR"], !path.isEmpty {
            let directory = URL(fileURLWithPath: path, isDirectory: true)
            guard holdsExecutables(directory) else {
                throw StackProcessesError.executablesMissing(
                    "FOYER_BIN_DIR=\(path) does not hold the executables \(names)"
                )
            }
            return directory
        }
        var starts: [URL] = [URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath(), Bundle.main.bundleURL]
        if let executable = Bundle.main.executableURL { starts.append(executable) }
        if let first = CommandLine.arguments.first { starts.append(URL(fileURLWithPath: first)) }
        for start in starts {
            var directory = start.deletingLastPathComponent()
            for _ in 0..<4 {
                if holdsExecutables(directory) { return directory }
                directory = directory.deletingLastPathComponent()
            }
        }
        throw StackProcessesError.executablesMissing(
            "the executables \(names) were not found next to \(starts.first?.path ?? "this program"); build them with `swift build` (which `swift test` does too) or set FOYER_BIN_DIR to their directory"
        )
    }

    private static var names: String { StackService.allCases.map(\.executableName).joined(separator: ", ") }

    private static func holdsExecutables(_ directory: URL) -> Bool {
        StackService.allCases.allSatisfy {
            FileManager.default.isExecutableFile(atPath: directory.appendingPathComponent($0.executableName).path)
        }
    }
}
