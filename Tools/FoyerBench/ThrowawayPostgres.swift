import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A PostgreSQL server for the end-to-end rows, started and stopped with `scripts/throwaway-postgres.sh` (as
/// `make test` does): initdb in a temporary directory, loopback only, a free port, the database `foyer_test`.
///
/// The script turns fsync off (it is made for tests); ``PostgresServer/makeDurable(url:logger:)`` turns
/// it back on before any row runs, so PostgreSQL commits as durably as SQLite's `synchronous=FULL`.
struct ThrowawayPostgres: Sendable {
    /// `postgres://postgres@127.0.0.1:PORT/foyer_test`.
    let url: String
    private let script: URL
    private let directory: URL

    /// Whether PostgreSQL's server binaries are installed where the script looks for them (the highest
    /// `/usr/lib/postgresql/*/bin`, else `initdb` on PATH).
    static var isInstalled: Bool {
        let versions = (try? FileManager.default.contentsOfDirectory(atPath: "/usr/lib/postgresql")) ?? []
        if versions.contains(where: {
            FileManager.default.isExecutableFile(atPath: "/usr/lib/postgresql/\($0)/bin/initdb")
        }) {
            return true
        }
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        return path.split(separator: ":").contains { FileManager.default.isExecutableFile(atPath: "\($0)/initdb") }
    }

    /// Starts a server; its output goes to a log that is quoted if the start fails.
    static func start() async throws -> ThrowawayPostgres {
        let script = try locateScript()
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("foyer-bench-pg-\(UUID().uuidString.prefix(8).lowercased())", isDirectory: true)
        let (status, output, log) = try await run(script, ["start", directory.path])
        let url = output.trimmingCharacters(in: .whitespacesAndNewlines)
        guard status == 0, url.hasPrefix("postgres://") else {
            throw BenchFailure("throwaway PostgreSQL did not start (exit \(status)):\n\(log)")
        }
        return ThrowawayPostgres(url: url, script: script, directory: directory)
    }

    /// Stops the server and removes its directory; a failure is printed, not thrown (the results stand).
    func stop() async {
        do {
            let (status, _, log) = try await Self.run(script, ["stop", directory.path])
            if status != 0 { FileHandle.standardError.write(Data("foyer-bench: stopping PostgreSQL: \(log)\n".utf8)) }
        } catch {
            FileHandle.standardError.write(Data("foyer-bench: stopping PostgreSQL: \(error)\n".utf8))
        }
    }

    /// `scripts/throwaway-postgres.sh` under the current directory (where `make bench` runs), else under one of the
    /// directories above the executable (`.build/release/foyer-bench` in the checkout).
    private static func locateScript() throws -> URL {
        let relative = "scripts/throwaway-postgres.sh"
        var candidates = [
            URL(fileURLWithPath: FileManager.default.currentDirectoryPath).appendingPathComponent(relative)
        ]
        var directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        for _ in 0..<4 {
            directory = directory.deletingLastPathComponent()
            candidates.append(directory.appendingPathComponent(relative))
        }
        guard let found = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0.path) }) else {
            throw BenchFailure("\(relative) not found: run foyer-bench from the checkout, or pass --postgres-url")
        }
        return found
    }

    /// Runs the script with stdout and stderr in files, and returns its exit status, stdout and stderr. Spawned and
    /// reaped with `posix_spawn` and `waitpid`, not `Process`: Foundation notices an exit by the closing of a socket
    /// the child inherits, and the server the script leaves running inherits it too.
    private static func run(_ script: URL, _ arguments: [String]) async throws -> (Int32, String, String) {
        let scratch = FileManager.default.temporaryDirectory
            .appendingPathComponent("foyer-bench-pg-output-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let stdout = scratch.appendingPathComponent("stdout")
        let stderr = scratch.appendingPathComponent("stderr")
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, stdout.path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, stderr.path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        let argv = ([script.path] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, script.path, &actions, nil, argv, environ)
        guard spawned == 0 else {
            throw BenchFailure("cannot run \(script.path): \(String(cString: strerror(spawned)))")
        }
        let child = pid
        let status = await withCheckedContinuation { (continuation: CheckedContinuation<Int32, Never>) in
            Thread.detachNewThread {
                var status: Int32 = 0
                while waitpid(child, &status, 0) == -1, errno == EINTR {}
                // WIFEXITED / WEXITSTATUS, which Swift does not import: the low 7 bits are the signal, if any.
                continuation.resume(returning: status & 0x7F == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F))
            }
        }
        let output = (try? String(contentsOf: stdout, encoding: .utf8)) ?? ""
        let log = (try? String(contentsOf: stderr, encoding: .utf8)) ?? ""
        return (status, output, log)
    }
}
