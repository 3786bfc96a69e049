import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The HTTP transport's URLSession delegate: collects each task's answer, stops reading one longer than
/// `byteCountMax` (so a broken or hostile server cannot make the client buffer without bound), and hands the
/// answer to the call waiting for it. On Apple platforms it also checks the server's certificate against a
/// private CA when one is configured (``PrivateCATrust``).
final class HTTPExchanges: NSObject, URLSessionDataDelegate, @unchecked Sendable {  // `pending` is guarded by `lock`
    /// One task's answer so far and the call waiting for it.
    private struct Pending {
        var continuation: CheckedContinuation<HTTPAnswer, any Error>
        var status = 0
        var headers: [String: String] = [:]
        var body: [UInt8] = []
        var tooLarge = false
    }

    private let byteCountMax: Int
    private let trust: PrivateCATrust?
    private let lock = NSLock()
    private var pending: [Int: Pending] = [:]

    init(byteCountMax: Int, trust: PrivateCATrust?) {
        self.byteCountMax = byteCountMax
        self.trust = trust
    }

    /// Runs `task`, answering its status, headers (lower-cased names) and body. The task is cancelled at
    /// `deadline` whatever it is doing: URLSession's own timeout only bounds the time between two reads, so a server
    /// trickling its answer would otherwise hold the call for as long as it likes.
    func run(_ task: URLSessionDataTask, deadline: ContinuousClock.Instant) async throws -> HTTPAnswer {
        let box = TaskBox(task: task)
        let watchdog = Task {
            do {
                try await Task.sleep(until: deadline, clock: .continuous)
            } catch {
                return  // the answer came first
            }
            box.task.cancel()
        }
        defer { watchdog.cancel() }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                lock.withLock { pending[task.taskIdentifier] = Pending(continuation: continuation) }
                task.resume()
            }
        } onCancel: {
            box.task.cancel()
        }
    }

    func urlSession(
        _ session: URLSession,
        dataTask: URLSessionDataTask,
        didReceive response: URLResponse,
        completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
    ) {
        let http = response as? HTTPURLResponse
        var headers: [String: String] = [:]
        for (name, value) in http?.allHeaderFields ?? [:] {
            if let name = name as? String, let value = value as? String { headers[name.lowercased()] = value }
        }
        let tooLarge = response.expectedContentLength > Int64(byteCountMax)
        lock.withLock {
            pending[dataTask.taskIdentifier]?.status = http?.statusCode ?? 0
            pending[dataTask.taskIdentifier]?.headers = headers
            pending[dataTask.taskIdentifier]?.tooLarge = tooLarge
        }
        completionHandler(tooLarge ? .cancel : .allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        let tooLarge = lock.withLock { () -> Bool in
            guard var entry = pending[dataTask.taskIdentifier] else { return false }
            if entry.body.count + data.count > byteCountMax {
                entry.tooLarge = true
                entry.body = []
            } else {
                entry.body += data
            }
            pending[dataTask.taskIdentifier] = entry
            return entry.tooLarge
        }
        if tooLarge { dataTask.cancel() }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        guard let entry = lock.withLock({ pending.removeValue(forKey: task.taskIdentifier) }) else { return }
        if entry.tooLarge {
            entry.continuation.resume(throwing: HTTPAnswerTooLarge(byteCountMax: byteCountMax))
        } else if let error {
            entry.continuation.resume(throwing: error)
        } else {
            entry.continuation.resume(
                returning: HTTPAnswer(status: entry.status, headers: entry.headers, body: entry.body)
            )
        }
    }

    #if canImport(Security)
    func urlSession(
        _ session: URLSession,
        didReceive challenge: URLAuthenticationChallenge,
        completionHandler: @escaping @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> Void
    ) {
        guard let trust, challenge.protectionSpace.authenticationMethod == NSURLAuthenticationMethodServerTrust,
            let serverTrust = challenge.protectionSpace.serverTrust
        else {
            completionHandler(.performDefaultHandling, nil)
            return
        }
        if trust.evaluate(serverTrust, host: challenge.protectionSpace.host) {
            completionHandler(.useCredential, URLCredential(trust: serverTrust))
        } else {
            completionHandler(.cancelAuthenticationChallenge, nil)
        }
    }
    #endif
}

/// A task handed to the cancellation handler (URLSessionTask is thread-safe but not marked `Sendable` everywhere).
private struct TaskBox: @unchecked Sendable {  // URLSessionTask's `cancel()` may be called from any thread
    let task: URLSessionDataTask
}

/// One HTTP answer.
struct HTTPAnswer: Sendable {
    var status: Int
    /// Header names lower-cased.
    var headers: [String: String]
    var body: [UInt8]
}

/// An answer body longer than the configured cap.
struct HTTPAnswerTooLarge: Error {
    var byteCountMax: Int
}
