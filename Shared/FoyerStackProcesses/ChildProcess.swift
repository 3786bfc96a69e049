import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A started executable: its pid, and its exit once it ends (Foundation's termination handler reports it).
final class ChildProcess: Sendable {
    private struct State {
        var exit: ProcessExit?
        var waiters: [CheckedContinuation<ProcessExit, Never>] = []
    }

    let pid: Int32
    private let state: Mutex<State>
    /// Kept so Foundation keeps watching the child until it ends; only read, never changed, after `launch`.
    private nonisolated(unsafe) let process: Process

    private init(pid: Int32, process: Process) {
        self.pid = pid
        self.process = process
        self.state = Mutex(State())
    }

    /// Starts `executable` with exactly `environment`, stdin from /dev/null and stdout and stderr appended to `log`
    /// (or discarded when nil).
    static func launch(
        _ executable: URL,
        arguments: [String],
        environment: [String: String],
        log: URL?
    ) throws -> ChildProcess {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        process.environment = environment
        process.standardInput = FileHandle.nullDevice
        var output: FileHandle?
        if let log {
            if !FileManager.default.fileExists(atPath: log.path) {
                _ = FileManager.default.createFile(atPath: log.path, contents: nil)
            }
            let handle = try FileHandle(forWritingTo: log)
            try handle.seekToEnd()
            output = handle
        }
        process.standardOutput = output ?? FileHandle.nullDevice
        process.standardError = output ?? FileHandle.nullDevice
        // The state exists before the handler can fire, so an early exit is never lost.
        let box = ExitBox()
        process.terminationHandler = { finished in
            let exit: ProcessExit =
                finished.terminationReason == .uncaughtSignal
                ? .signalled(finished.terminationStatus) : .exited(status: finished.terminationStatus)
            box.finish(exit)
        }
        do {
            try process.run()
        } catch {
            try? output?.close()
            throw error
        }
        // The child has its own copy of the descriptor.
        try? output?.close()
        let child = ChildProcess(pid: process.processIdentifier, process: process)
        box.attach(child)
        return child
    }

    /// The exit, if the process has ended.
    var exit: ProcessExit? { state.withLock { $0.exit } }

    /// Sends `signal` (ignored if the process has already ended).
    func send(_ signal: Int32) {
        guard exit == nil else { return }
        _ = kill(pid, signal)
    }

    /// Waits for the process to end.
    func waitForExit() async -> ProcessExit {
        await withCheckedContinuation { continuation in
            let ended = state.withLock { state -> ProcessExit? in
                if let exit = state.exit { return exit }
                state.waiters.append(continuation)
                return nil
            }
            if let ended { continuation.resume(returning: ended) }
        }
    }

    /// Waits up to `timeout` for the process to end, then kills it with SIGKILL and waits for that.
    ///
    /// - Returns: the exit, and whether the timeout ran out.
    func waitForExit(killingAfter timeout: Duration) async -> (exit: ProcessExit, timedOut: Bool) {
        enum Event: Sendable {
            case exited(ProcessExit)
            case killed
            case cancelled
        }
        return await withTaskGroup(of: Event.self) { group in
            group.addTask { .exited(await self.waitForExit()) }
            group.addTask {
                do {
                    try await Task.sleep(for: timeout)
                } catch {
                    return .cancelled
                }
                self.send(SIGKILL)
                return .killed
            }
            var exit = ProcessExit.signalled(SIGKILL)
            var timedOut = false
            for await event in group {
                switch event {
                case .exited(let ended):
                    exit = ended
                    group.cancelAll()
                case .killed: timedOut = true
                case .cancelled: break
                }
            }
            return (exit, timedOut)
        }
    }

    fileprivate func finish(_ exit: ProcessExit) {
        let waiters = state.withLock { state in
            state.exit = exit
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume(returning: exit) }
    }
}

/// Carries the exit from the termination handler to the child, which only exists once the process runs; an exit
/// reported before that is held and handed over in `attach`.
private final class ExitBox: Sendable {
    private struct State {
        var child: ChildProcess?
        var early: ProcessExit?
    }

    private let state = Mutex(State())

    func attach(_ child: ChildProcess) {
        let early = state.withLock { state in
            state.child = child
            return state.early
        }
        if let early { child.finish(early) }
    }

    func finish(_ exit: ProcessExit) {
        let child = state.withLock { state in
            if state.child == nil { state.early = exit }
            return state.child
        }
        child?.finish(exit)
    }
}
