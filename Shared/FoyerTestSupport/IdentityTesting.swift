// Test helpers first needed by the identity tests, usable by any test target:
//
// - `PythonScript.run`: runs a Python helper script with JSON on stdin and returns its stdout, failing (never
//   skipping) with a message that says what to install when python3 or a package is missing.
// - `PythonCoprocess`: one long-lived helper script answering a line of JSON with a line of JSON, so a test run
//   starts Python once rather than for every request.
// - `LoopbackHTTPServer`: a tiny HTTP/1.1 server on 127.0.0.1 with a free port, answering from a closure and
//   recording what it was sent (a provider's JWKS URL, a mail webhook).

public import Foundation
import NIOCore
import NIOPosix
import Synchronization

// MARK: - Python helper scripts

/// Runs helper scripts written in Python (an outside implementation to check against).
public enum PythonScript {
    /// Why a script could not give an answer; the description says what to fix.
    public struct Failure: Error, CustomStringConvertible {
        public let description: String

        public init(description: String) {
            self.description = description
        }
    }

    /// Runs `python3 script arguments…` with `input` on stdin and returns its stdout.
    ///
    /// - Parameter missingPackages: exit statuses the script uses to say a package is missing, with the install
    ///   hint to show (e.g. `[3: "run make deps to install cryptography"]`).
    /// - Throws: ``Failure`` when python3 is not on PATH, the script is missing, it exits with a status other than
    ///   0 (naming the missing package if the status says so, with its stderr), or it runs over `timeout`.
    public static func run(
        _ script: URL,
        arguments: [String] = [],
        input: Data,
        missingPackages: [Int32: String] = [:],
        timeout: Duration = .seconds(120)
    ) async throws -> Data {
        // The process is waited for on a dispatch thread: blocking the cooperative pool (two threads on a
        // two-core machine) would stall every other test running in parallel.
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(
                    with: Result {
                        try runBlocking(
                            script,
                            arguments: arguments,
                            input: input,
                            missingPackages: missingPackages,
                            timeout: timeout
                        )
                    }
                )
            }
        }
    }

    /// ``run(_:arguments:input:missingPackages:timeout:)`` for synchronous callers (it blocks the calling thread).
    public static func runBlocking(
        _ script: URL,
        arguments: [String] = [],
        input: Data,
        missingPackages: [Int32: String] = [:],
        timeout: Duration = .seconds(120)
    ) throws -> Data {
        guard let python = locateExecutable("python3") else {
            throw Failure(description: "python3 was not found on PATH; run `make deps` to install it")
        }
        guard FileManager.default.fileExists(atPath: script.path) else {
            throw Failure(description: "missing helper script \(script.path)")
        }
        // stdin and stderr go through files, so neither side can block on a full pipe.
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("foyer-python-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let inputFile = scratch.appendingPathComponent("stdin")
        let errorFile = scratch.appendingPathComponent("stderr")
        try input.write(to: inputFile)
        try Data().write(to: errorFile)
        let inputHandle = try FileHandle(forReadingFrom: inputFile)
        defer { try? inputHandle.close() }
        let errorHandle = try FileHandle(forWritingTo: errorFile)
        defer { try? errorHandle.close() }

        let process = Process()
        let output = Pipe()
        process.executableURL = python
        process.arguments = [script.path] + arguments
        process.standardInput = inputHandle
        process.standardOutput = output
        process.standardError = errorHandle
        let exited = DispatchSemaphore(value: 0)
        process.terminationHandler = { _ in exited.signal() }
        try process.run()
        let pid = process.processIdentifier
        let seconds = Double(timeout.components.seconds)
        DispatchQueue.global().async {
            if exited.wait(timeout: .now() + seconds) == .timedOut { kill(pid, SIGKILL) }
        }
        let stdout = try output.fileHandleForReading.readToEnd() ?? Data()
        process.waitUntilExit()
        let stderr = (try? String(contentsOf: errorFile, encoding: .utf8)) ?? ""
        let name = script.lastPathComponent
        switch (process.terminationReason, process.terminationStatus) {
        case (.exit, 0):
            return stdout
        case (.exit, let status) where missingPackages[status] != nil:
            throw Failure(
                description: "\(name): a Python package is missing; \(missingPackages[status]!). It said: \(stderr)"
            )
        case (let reason, let status):
            let how = reason == .exit ? "exit status" : "signal"
            throw Failure(description: "\(name) failed (\(how) \(status)): \(stderr)")
        }
    }

    /// The first executable called `name` on PATH.
    public static func locateExecutable(_ name: String) -> URL? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        for directory in path.split(separator: ":") where !directory.isEmpty {
            let candidate = URL(fileURLWithPath: String(directory)).appendingPathComponent(name)
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
        }
        return nil
    }
}

/// A Python helper script kept running for many requests: each request is one line on its stdin, each answer
/// one line on its stdout. Started on first use; restarted if it died. Requests are served one at a time, on a
/// dispatch queue (never blocking the cooperative pool). When the test process ends, the script reads end-of-file
/// and exits.
public final class PythonCoprocess: @unchecked Sendable {  // mutable state confined to `queue`
    private let script: URL
    private let arguments: [String]
    private let missingPackages: [Int32: String]
    private let timeout: Duration
    private let queue = DispatchQueue(label: "foyer.test.python-coprocess")
    private var process: Process?
    private var input: FileHandle?
    private var output: FileHandle?
    private var errorFile: URL?
    private var buffered = Data()

    public init(
        _ script: URL,
        arguments: [String],
        missingPackages: [Int32: String] = [:],
        timeout: Duration = .seconds(60)
    ) {
        self.script = script
        self.arguments = arguments
        self.missingPackages = missingPackages
        self.timeout = timeout
    }

    /// Sends `line` (without its newline) and returns the answer line.
    public func request(_ line: Data) async throws -> Data {
        try await withCheckedThrowingContinuation { continuation in
            queue.async { continuation.resume(with: Result { try self.exchange(line) }) }
        }
    }

    private func exchange(_ line: Data) throws -> Data {
        if process?.isRunning != true { try start() }
        guard let process, let input, let output else { throw PythonScript.Failure(description: "not started") }
        do {
            try input.write(contentsOf: line + Data([0x0A]))
        } catch {
            throw died(process)
        }
        let pid = process.processIdentifier
        let watchdog = DispatchWorkItem { kill(pid, SIGKILL) }
        DispatchQueue.global().asyncAfter(deadline: .now() + Double(timeout.components.seconds), execute: watchdog)
        defer { watchdog.cancel() }
        while true {
            if let newline = buffered.firstIndex(of: 0x0A) {
                let answer = buffered[buffered.startIndex..<newline]
                buffered.removeSubrange(buffered.startIndex...newline)
                return Data(answer)
            }
            let chunk = output.availableData
            if chunk.isEmpty { throw died(process) }
            buffered.append(chunk)
        }
    }

    private func start() throws {
        guard let python = PythonScript.locateExecutable("python3") else {
            throw PythonScript.Failure(description: "python3 was not found on PATH; run `make deps` to install it")
        }
        guard FileManager.default.fileExists(atPath: script.path) else {
            throw PythonScript.Failure(description: "missing helper script \(script.path)")
        }
        // A script that exits early (a missing package) must fail the write, not kill the test process.
        signal(SIGPIPE, SIG_IGN)
        let errorFile = FileManager.default.temporaryDirectory.appendingPathComponent(
            "foyer-python-\(UUID().uuidString)"
        )
        try Data().write(to: errorFile)
        let process = Process()
        let stdin = Pipe()
        let stdout = Pipe()
        process.executableURL = python
        process.arguments = [script.path] + arguments
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = try FileHandle(forWritingTo: errorFile)
        try process.run()
        self.process = process
        self.input = stdin.fileHandleForWriting
        self.output = stdout.fileHandleForReading
        self.errorFile = errorFile
        buffered = Data()
    }

    private func died(_ process: Process) -> PythonScript.Failure {
        process.waitUntilExit()
        let stderr = errorFile.flatMap { try? String(contentsOf: $0, encoding: .utf8) } ?? ""
        self.process = nil
        let name = script.lastPathComponent
        let status = process.terminationStatus
        if process.terminationReason == .exit, let hint = missingPackages[status] {
            return PythonScript.Failure(
                description: "\(name): a Python package is missing; \(hint). It said: \(stderr)"
            )
        }
        return PythonScript.Failure(description: "\(name) stopped (status \(status)): \(stderr)")
    }
}

// MARK: - Loopback HTTP server

/// A minimal HTTP/1.1 server for tests: one request per connection (`Connection: close`), a body only with
/// `Content-Length`, answers from a closure. Requests are recorded in order.
public final class LoopbackHTTPServer: Sendable {
    public struct Request: Sendable {
        public var method: String
        public var path: String
        /// Header names lower-cased.
        public var headers: [String: String]
        public var body: [UInt8]
    }

    public struct Response: Sendable {
        public var status: Int
        public var headers: [String: String]
        public var body: [UInt8]

        public init(status: Int = 200, headers: [String: String] = [:], body: [UInt8] = []) {
            self.status = status
            self.headers = headers
            self.body = body
        }
    }

    public typealias Handler = @Sendable (Request) -> Response

    private let channel: any Channel
    private let log: RequestLog
    /// The port it listens on, on 127.0.0.1.
    public let port: Int

    private init(channel: any Channel, log: RequestLog) {
        self.channel = channel
        self.log = log
        self.port = channel.localAddress!.port!
    }

    /// The requests received so far.
    public var requests: [Request] { log.requests }

    /// `http://127.0.0.1:<port><path>`.
    public func url(_ path: String) -> String { "http://127.0.0.1:\(port)\(path)" }

    /// Starts a server answering with `handler`.
    public static func start(_ handler: @escaping Handler) async throws -> LoopbackHTTPServer {
        let log = RequestLog()
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(HTTPHandler(handler: handler, log: log))
                }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        return LoopbackHTTPServer(channel: channel, log: log)
    }

    /// Stops listening.
    public func stop() async throws {
        try await channel.close()
    }
}

/// Runs `body` with a server answering with `handler`, stopping it afterwards.
public func withLoopbackHTTPServer<T>(
    _ handler: @escaping LoopbackHTTPServer.Handler,
    _ body: (LoopbackHTTPServer) async throws -> T
) async throws -> T {
    let server = try await LoopbackHTTPServer.start(handler)
    do {
        let result = try await body(server)
        try? await server.stop()
        return result
    } catch {
        try? await server.stop()
        throw error
    }
}

private final class RequestLog: Sendable {
    private let entries = Mutex<[LoopbackHTTPServer.Request]>([])
    var requests: [LoopbackHTTPServer.Request] { entries.withLock { $0 } }
    func append(_ request: LoopbackHTTPServer.Request) { entries.withLock { $0.append(request) } }
}

/// Reads one request (headers, then `Content-Length` bytes), answers, closes.
private final class HTTPHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private let handler: LoopbackHTTPServer.Handler
    private let log: RequestLog
    private var buffer = ByteBuffer()
    private var head: (method: String, path: String, headers: [String: String])?
    private var answered = false

    init(handler: @escaping LoopbackHTTPServer.Handler, log: RequestLog) {
        self.handler = handler
        self.log = log
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var incoming = unwrapInboundIn(data)
        buffer.writeBuffer(&incoming)
        guard !answered else { return }
        if head == nil {
            let bytes = Array(buffer.readableBytesView)
            guard let end = bytes.firstRange(of: Array("\r\n\r\n".utf8)) else { return }
            let lines = String(decoding: bytes[..<end.lowerBound], as: UTF8.self).components(separatedBy: "\r\n")
            let requestLine = lines[0].split(separator: " ")
            var headers: [String: String] = [:]
            for line in lines.dropFirst() {
                guard let colon = line.firstIndex(of: ":") else { continue }
                headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(
                    in: .whitespaces
                )
            }
            head = (String(requestLine.first ?? ""), String(requestLine.dropFirst().first ?? ""), headers)
            buffer.moveReaderIndex(forwardBy: end.upperBound)
            if headers["expect"]?.lowercased() == "100-continue" {
                context.writeAndFlush(
                    wrapOutboundOut(ByteBuffer(string: "HTTP/1.1 100 Continue\r\n\r\n")),
                    promise: nil
                )
            }
        }
        guard let head else { return }
        let length = Int(head.headers["content-length"] ?? "0") ?? 0
        guard buffer.readableBytes >= length else { return }
        let request = LoopbackHTTPServer.Request(
            method: head.method,
            path: head.path,
            headers: head.headers,
            body: buffer.readBytes(length: length) ?? []
        )
        log.append(request)
        answered = true
        let response = handler(request)
        var text = "HTTP/1.1 \(response.status) \(response.status < 400 ? "OK" : "Error")\r\n"
        text += "Content-Length: \(response.body.count)\r\nConnection: close\r\n"
        for (name, value) in response.headers { text += "\(name): \(value)\r\n" }
        text += "\r\n"
        var out = ByteBuffer(string: text)
        out.writeBytes(response.body)
        let written = context.eventLoop.makePromise(of: Void.self)
        context.writeAndFlush(wrapOutboundOut(out), promise: written)
        written.futureResult.whenComplete { [channel = context.channel] _ in channel.close(promise: nil) }
    }
}
