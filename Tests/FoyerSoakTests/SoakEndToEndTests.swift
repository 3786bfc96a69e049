import Foundation
import FoyerSoakKit
import FoyerStackProcesses
import Testing

/// The real `foyer-soak` built beside the services, on the real stack, with "minutes" of two seconds.
@Suite("foyer-soak end to end")
struct SoakEndToEndTests {
    @Test("a short run prints its minutes, writes the JSON and passes without errors")
    func shortRun() async throws {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("foyer-soak-test-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let json = directory.appendingPathComponent("soak.json")
        let output = directory.appendingPathComponent("soak.out")
        let status = try await Self.soak(
            [
                "--minutes", "2", "--minute-seconds", "2", "--probe-seconds", "2", "--concurrency", "2", "--json",
                json.path,
            ],
            output: output
        )
        let printed = (try? String(contentsOf: output, encoding: .utf8)) ?? ""
        #expect(status == 0, "foyer-soak exited \(status):\n\(printed)")
        let result = try JSONDecoder().decode(SoakResult.self, from: Data(contentsOf: json))
        #expect(result.verdict.passed)
        #expect(!result.verdict.memoryChecked)
        #expect(result.minutes.map(\.minute) == [1, 2])
        #expect(result.minuteSeconds == 2)
        #expect(result.probe.requests > 0)
        #expect(Set(result.rates.keys) == ["guest-signup", "guest-journey", "merge", "read-write", "refresh"])
        for minute in [result.probe] + result.minutes {
            #expect(minute.requests > 0)
            #expect(minute.isClean)
            #expect(Set(minute.services.keys) == Set(StackService.allCases.map(\.rawValue)))
            #expect(minute.services.values.allSatisfy { $0.residentBytes > 0 && $0.openFiles > 0 })
        }
        #expect(printed.contains("capacity probe (2 s, unthrottled): "))
        #expect(printed.contains("\nminute 2: "))
        #expect(printed.contains("the memory check needs at least 3 minutes"))
        #expect(printed.hasSuffix("verdict: pass\n"))
    }

    /// Runs `foyer-soak` from the executables' directory with `arguments` (and no FOYER_ variable), its standard
    /// output and error into `output`, and returns its exit status.
    static func soak(_ arguments: [String], output: URL) async throws -> Int32 {
        let process = Process()
        process.executableURL = try StackProcesses.locateExecutables().appendingPathComponent("foyer-soak")
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("FOYER_") }
        _ = FileManager.default.createFile(atPath: output.path, contents: nil)
        let handle = try FileHandle(forWritingTo: output)
        defer { try? handle.close() }
        process.standardOutput = handle
        process.standardError = handle
        return try await withCheckedThrowingContinuation { continuation in
            process.terminationHandler = { continuation.resume(returning: $0.terminationStatus) }
            do {
                try process.run()
            } catch {
                continuation.resume(throwing: error)
            }
        }
    }
}
