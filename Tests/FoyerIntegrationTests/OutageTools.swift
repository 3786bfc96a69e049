import Foundation
import FoyerClient
import FoyerStorage
import FoyerTestSupport
import SQLKit
import Synchronization
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Runs a command to its end on a dispatch thread (never blocking the cooperative pool) and returns its standard
/// output; a non-zero exit throws with its standard error.
func runCommand(_ arguments: [String]) async throws -> String {
    try await withCheckedThrowingContinuation { continuation in
        DispatchQueue.global().async {
            continuation.resume(with: Result { try runCommandBlocking(arguments) })
        }
    }
}

/// posix_spawn and waitpid on the one child, its output through files: nothing here depends on another part of the
/// process reaping children or draining pipes.
private func runCommandBlocking(_ arguments: [String]) throws -> String {
    let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("foyer-outage-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: scratch) }
    let outputPath = scratch.appendingPathComponent("stdout").path
    let errorPath = scratch.appendingPathComponent("stderr").path
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
    posix_spawn_file_actions_addopen(&actions, 1, outputPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
    posix_spawn_file_actions_addopen(&actions, 2, errorPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
    let argv = (["/usr/bin/env"] + arguments).map { strdup($0) } + [nil]
    defer { for argument in argv { free(argument) } }
    var pid: pid_t = 0
    let spawned = posix_spawn(&pid, "/usr/bin/env", &actions, nil, argv, environ)
    guard spawned == 0 else { throw OutageToolError(message: "cannot start \(arguments): errno \(spawned)") }
    var status: Int32 = 0
    while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
    let printed = (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? ""
    guard status == 0 else {
        let complaints = (try? String(contentsOfFile: errorPath, encoding: .utf8)) ?? ""
        throw OutageToolError(message: "\(arguments.joined(separator: " ")) failed (\(status)): \(complaints)")
    }
    return printed.trimmingCharacters(in: .whitespacesAndNewlines)
}

/// A command the outage tests needed failed.
struct OutageToolError: Error, CustomStringConvertible {
    let message: String
    var description: String { message }
}

/// A PostgreSQL server of one test (`scripts/throwaway-postgres.sh`), which the test may stop at once and start
/// again on the same port and data.
struct ThrowawayPostgres: Sendable {
    let directory: URL
    let url: String

    private static let script = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("scripts/throwaway-postgres.sh").path

    /// Starts a server in a fresh directory under the temporary directory, with `synchronous_commit` on: the
    /// script turns it off for speed, and then a commit acknowledged just before an immediate stop may be lost,
    /// which is what these tests look for.
    static func start() async throws -> ThrowawayPostgres {
        let directory = URL(fileURLWithPath: "/tmp", isDirectory: true)
            .appendingPathComponent("foyer-outage-pg-\(UUID().uuidString)", isDirectory: true)
        let url = try await runCommand(["bash", script, "start", directory.path])
        let server = ThrowawayPostgres(directory: directory, url: url)
        do {
            var configuration = try DatabaseConfiguration.parse(url, dataDirectory: "", defaultFileName: "")
            configuration.limits.postgresPoolSize = 1
            let admin = try await FoyerDatabase.open(configuration, logger: testDatabaseLogger)
            do {
                try await admin.withConnection { sql in
                    try await sql.raw("ALTER SYSTEM SET synchronous_commit = on").run()
                    try await sql.raw("SELECT pg_reload_conf()").run()
                }
            } catch {
                try? await admin.close()
                throw error
            }
            try await admin.close()
        } catch {
            await server.stop()
            throw error
        }
        return server
    }

    /// `pg_ctl stop -m immediate`: every backend is killed, nothing is flushed or checkpointed.
    func pause() async throws { _ = try await runCommand(["bash", Self.script, "pause", directory.path]) }

    /// Starts the server again on the same port; it runs crash recovery first.
    func resume() async throws { _ = try await runCommand(["bash", Self.script, "resume", directory.path]) }

    /// Stops the server and removes its directory (also when it is paused).
    func stop() async { _ = try? await runCommand(["bash", Self.script, "stop", directory.path]) }
}

/// A tmpfs of a given size mounted on a fresh directory (root only), to fill a service's disk.
struct SizeLimitedDirectory: Sendable {
    let path: String

    static func mount(kibibytes: Int) async throws -> SizeLimitedDirectory {
        let path = "/tmp/foyer-outage-disk-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        do {
            _ = try await runCommand(["mount", "-t", "tmpfs", "-o", "size=\(kibibytes)k", "tmpfs", path])
        } catch {
            try? FileManager.default.removeItem(atPath: path)
            throw error
        }
        return SizeLimitedDirectory(path: path)
    }

    /// Changes the size in place; the files stay.
    func resize(kibibytes: Int) async throws {
        _ = try await runCommand(["mount", "-o", "remount,size=\(kibibytes)k", path])
    }

    /// Unmounts (lazily, should a file still be open) and removes the directory.
    func unmount() async {
        _ = try? await runCommand(["umount", "-l", path])
        try? FileManager.default.removeItem(atPath: path)
    }
}

/// Whether this process may mount a filesystem (it runs as root).
let mayMount = getuid() == 0

/// A guest plan without practical limits, so that a test can write until the disk is full.
let unlimitedPlans = Array(
    """
    {"guest": {"counters": {"documents": 1000000, "bytes": 1073741824}, "features": {"import": false}},
     "member": {"counters": {"documents": 1000000, "bytes": 1073741824}, "features": {"import": true}}}
    """.utf8
)

/// What a load saw, shared by its workers: every answer by phase, and every acknowledged put with its content.
/// Waiters are resumed as soon as the answers they wait for are in (no polling).
final class OutageLedger: Sendable {
    enum Phase: Sendable { case before, outage, after }

    struct Answers: Sendable {
        var phase = Phase.before
        var successes: [Phase: Int] = [:]
        /// Failures by phase and status name (`unavailable`, ..., or the error's description when not a status).
        var failures: [Phase: [String: Int]] = [:]
        /// Successes in a row per worker and operation since the last failure of that worker.
        var streaks: [Int: [String: Int]] = [:]
        var acknowledged: [Int: [String: String]] = [:]
        var stopped = false
    }

    private struct Waiter {
        let id: UUID
        let ready: @Sendable (Answers) -> Bool
        let continuation: CheckedContinuation<Void, Never>
    }

    private let state = Mutex((answers: Answers(), waiters: [Waiter]()))

    var answers: Answers { state.withLock { $0.answers } }
    var stopped: Bool { state.withLock { $0.answers.stopped } }

    func enter(_ phase: Phase) { update { $0.phase = phase } }
    func stop() { update { $0.stopped = true } }

    func succeeded(worker: Int, operation: String, acknowledging put: (key: String, value: String)? = nil) {
        update { answers in
            answers.successes[answers.phase, default: 0] += 1
            answers.streaks[worker, default: [:]][operation, default: 0] += 1
            if let put { answers.acknowledged[worker, default: [:]][put.key] = put.value }
        }
    }

    func failed(worker: Int, _ error: any Error) {
        let name = (error as? FoyerError)?.status.map { "\($0)" } ?? "\(error)"
        update { answers in
            answers.failures[answers.phase, default: [:]][name, default: 0] += 1
            answers.streaks[worker] = [:]
        }
    }

    /// Returns once `ready` holds for the answers, or when the task is cancelled.
    func wait(until ready: @escaping @Sendable (Answers) -> Bool) async {
        let id = UUID()
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let now = state.withLock { state in
                    if ready(state.answers) || Task.isCancelled { return true }
                    state.waiters.append(Waiter(id: id, ready: ready, continuation: continuation))
                    return false
                }
                if now { continuation.resume() }
            }
        } onCancel: {
            let waiter = state.withLock { state in
                state.waiters.firstIndex { $0.id == id }.map { state.waiters.remove(at: $0) }
            }
            waiter?.continuation.resume()
        }
    }

    private func update(_ change: (inout Answers) -> Void) {
        let due = state.withLock { state in
            change(&state.answers)
            let answers = state.answers
            let due = state.waiters.filter { $0.ready(answers) }
            state.waiters.removeAll { $0.ready(answers) }
            return due
        }
        for waiter in due { waiter.continuation.resume() }
    }
}

/// Runs `body`, failing with a message when it takes longer than `limit` (a bound on a wait, not a measurement).
func within<T: Sendable>(
    _ limit: Duration,
    _ what: String,
    _ body: @escaping @Sendable () async throws -> T
) async throws -> T {
    try await withThrowingTaskGroup(of: T?.self) { group in
        group.addTask { try await body() }
        group.addTask {
            try await Task.sleep(for: limit)
            return nil
        }
        defer { group.cancelAll() }
        guard let first = try await group.next(), let result = first else {
            throw OutageToolError(message: "\(what) did not happen within \(limit)")
        }
        return result
    }
}
