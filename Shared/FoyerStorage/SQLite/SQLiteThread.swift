import Foundation

/// The one thread an SQLite connection runs on, and a task executor: the code of a task that prefers it (Swift's
/// `withTaskExecutorPreference`) runs on this thread, so every statement of a transaction is a plain call into
/// SQLite from the thread that already runs the transaction's body, not a hand-off to another thread and back.
///
/// Why a thread per connection: a statement may block in SQLite (an fsync at COMMIT, the busy handler sleeping on a
/// lock another process holds), and it must never block anyone else's work, least of all the connection that holds
/// the lock it waits for. Why a task executor: Foyer's profile of a guest sign-in found half of identity's time in
/// the kernel, threads waking each other, mostly for the two or three hand-offs that every statement cost
/// (docs/DECISIONS.md, "Where a guest sign-in's time goes").
///
/// Jobs run in the order they were enqueued. ``stop()`` ends the thread once the jobs already queued have run;
/// nothing may be enqueued after it.
final class SQLiteThread: TaskExecutor, @unchecked Sendable {  // `jobs`, `stopping`, `running` guarded by `condition`
    private let condition = NSCondition()
    private var jobs: [UnownedJob] = []
    private var stopping = false
    /// The thread as it sees itself (`Thread.current` inside it), for ``isCurrent``.
    private var running: Thread?

    /// Starts the thread, named `name` in profiles and debuggers.
    init(name: String) {
        let thread = Thread { [self] in
            // Named from inside: Foundation on Linux does not pass a name set before `start()` to the thread.
            Thread.current.name = name
            self.condition.lock()
            self.running = Thread.current
            self.condition.unlock()
            self.runJobs()
        }
        thread.start()
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        self.condition.lock()
        precondition(!self.stopping, "a job was enqueued on a stopped SQLite thread")
        self.jobs.append(job)
        if self.jobs.count == 1 { self.condition.signal() }
        self.condition.unlock()
    }

    /// Whether the caller runs on this thread (for assertions: a connection's statements must).
    var isCurrent: Bool {
        self.condition.lock()
        defer { self.condition.unlock() }
        return self.running.map { $0 === Thread.current } ?? false
    }

    /// Lets the thread end once the jobs queued by now have run.
    func stop() {
        self.condition.lock()
        self.stopping = true
        self.condition.signal()
        self.condition.unlock()
    }

    private func runJobs() {
        var batch: [UnownedJob] = []
        while true {
            self.condition.lock()
            while self.jobs.isEmpty && !self.stopping { self.condition.wait() }
            if self.jobs.isEmpty {
                self.condition.unlock()
                return
            }
            swap(&batch, &self.jobs)
            self.condition.unlock()
            for job in batch { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
            batch.removeAll(keepingCapacity: true)
        }
    }
}
