public import Foundation
import Synchronization

#if canImport(Glibc)
public import Glibc
#elseif canImport(Darwin)
public import Darwin
#endif

/// The five Foyer executables running as child processes on loopback, for integration tests and end-to-end
/// benchmarks: started on free ports, each told the others' addresses, ready once each answers `--check-health`.
///
/// ```swift
/// let stack = try await StackProcesses.start(configuration)
/// let gatewayPort = stack.port(of: .gateway)
/// ...
/// _ = await stack.kill(.userData)        // SIGKILL, as a crash would
/// try await stack.restart(.userData)     // same port, same data
/// try await stack.terminate()            // SIGTERM to all; throws unless each exits 0
/// ```
///
/// Every service's output is appended to `logs/<service>.log` in the data directory, and errors quote its end.
public final class StackProcesses: Sendable {
    public let configuration: StackConfiguration
    private let ports: [StackService: Int]
    /// The loopback port of the gateway's HTTP API, reserved with the others; served only when
    /// ``StackConfiguration/gatewayServesHTTP`` is on.
    public let httpPort: Int
    /// The loopback port of the gateway's admin listener, reserved with the others; served only when
    /// ``StackConfiguration/gatewayServesAdmin`` is on.
    public let adminPort: Int
    /// The loopback ports of the services' metrics endpoints, reserved with the others; served only when
    /// ``StackConfiguration/servesMetrics`` is on.
    private let metricsPorts: [StackService: Int]
    private let state: Mutex<State>

    private struct State {
        var running: [StackService: ChildProcess] = [:]
        var environment: [StackService: [String: String]]
    }

    private init(
        configuration: StackConfiguration,
        ports: [StackService: Int],
        httpPort: Int,
        adminPort: Int,
        metricsPorts: [StackService: Int]
    ) {
        self.configuration = configuration
        self.ports = ports
        self.httpPort = httpPort
        self.adminPort = adminPort
        self.metricsPorts = metricsPorts
        self.state = Mutex(State(environment: configuration.environment))
    }

    /// Starts all five services at once (each finds the others by address when it first calls them) and waits until
    /// each answers its health check. If one does not come up, all are killed and the error quotes its log.
    public static func start(_ configuration: StackConfiguration) async throws -> StackProcesses {
        for service in StackService.allCases {
            let path = configuration.binDirectory.appendingPathComponent(service.executableName).path
            guard FileManager.default.isExecutableFile(atPath: path) else {
                throw StackProcessesError.executablesMissing(
                    "\(path) is missing: build the executables first (`swift build`) or point FOYER_BIN_DIR at them"
                )
            }
        }
        try FileManager.default.createDirectory(
            at: configuration.dataDirectory.appendingPathComponent("logs", isDirectory: true),
            withIntermediateDirectories: true
        )
        let count = StackService.allCases.count
        let reserved = try LoopbackPorts.reserve(2 * count + 2)
        let stack = StackProcesses(
            configuration: configuration,
            ports: Dictionary(uniqueKeysWithValues: zip(StackService.allCases, reserved)),
            httpPort: reserved[count],
            adminPort: reserved[count + 1],
            metricsPorts: Dictionary(uniqueKeysWithValues: zip(StackService.allCases, reserved[(count + 2)...]))
        )
        do {
            for service in StackService.allCases { try stack.launch(service) }
            for service in StackService.allCases { try await stack.waitUntilHealthy(service) }
        } catch {
            await stack.killAll()
            throw error
        }
        return stack
    }

    /// The loopback port `service` listens on (the same across restarts).
    public func port(of service: StackService) -> Int {
        ports[service] ?? 0
    }

    /// The loopback port of `service`'s metrics endpoint (served when ``StackConfiguration/servesMetrics`` is on).
    public func metricsPort(of service: StackService) -> Int {
        metricsPorts[service] ?? 0
    }

    /// The process id of `service`, if it runs.
    public func processID(of service: StackService) -> Int32? {
        state.withLock { $0.running[service] }.flatMap { $0.exit == nil ? $0.pid : nil }
    }

    /// Whether `service`'s process has not ended.
    public func isRunning(_ service: StackService) -> Bool { processID(of: service) != nil }

    /// Sends `signal` to `service` (SIGKILL by default: a crash, no drain, no clean-up) and waits for it to end.
    ///
    /// - Returns: how it ended (nil if it was not running).
    @discardableResult
    public func kill(_ service: StackService, signal: Int32 = SIGKILL) async -> ProcessExit? {
        guard let child = state.withLock({ $0.running[service] }) else { return nil }
        child.send(signal)
        return await child.waitForExit()
    }

    /// Waits for `service` to end by itself (a test-only fault point makes it kill itself).
    public func waitForExit(of service: StackService) async -> ProcessExit? {
        guard let child = state.withLock({ $0.running[service] }) else { return nil }
        return await child.waitForExit()
    }

    /// Starts `service` again on its port and data, stopping it first (SIGTERM) if it still runs, and waits until it
    /// answers its health check.
    ///
    /// - Parameter environment: when given, replaces what ``StackConfiguration/environment`` said for this service,
    ///   from now on (e.g. to disarm a fault point).
    public func restart(_ service: StackService, environment: [String: String]? = nil) async throws {
        if let running = state.withLock({ $0.running[service] }), running.exit == nil {
            running.send(SIGTERM)
            _ = await running.waitForExit(killingAfter: configuration.stopTimeout)
        }
        if let environment { state.withLock { $0.environment[service] = environment } }
        try launch(service)
        try await waitUntilHealthy(service)
    }

    /// Stops every running service with SIGTERM (the gateway first) and waits for each.
    ///
    /// - Throws: ``StackProcessesError/unexpectedExit`` naming each service that did not exit with status 0 within
    ///   the stop timeout (it is killed then), with the end of its log.
    public func terminate() async throws {
        var failures: [String] = []
        for service in StackService.allCases.reversed() {
            guard let child = state.withLock({ $0.running.removeValue(forKey: service) }), child.exit == nil else {
                continue
            }
            child.send(SIGTERM)
            let (exit, timedOut) = await child.waitForExit(killingAfter: configuration.stopTimeout)
            if timedOut || !exit.isClean {
                failures.append(
                    "\(service) \(timedOut ? "did not stop within \(configuration.stopTimeout) and was killed" : "\(exit)") after SIGTERM\n\(logTail(of: service))"
                )
            }
        }
        if !failures.isEmpty { throw StackProcessesError.unexpectedExit(failures.joined(separator: "\n")) }
    }

    /// Kills every running service with SIGKILL and waits for them (for failure paths; nothing is checked).
    public func killAll() async {
        let children = state.withLock { state in
            defer { state.running = [:] }
            return Array(state.running.values)
        }
        for child in children { child.send(SIGKILL) }
        for child in children { _ = await child.waitForExit() }
    }

    /// The peak resident set size of `service`'s current process (`VmHWM` in /proc/PID/status), in bytes; nil if it
    /// does not run or the system has no /proc.
    public func peakResidentBytes(of service: StackService) -> UInt64? {
        guard let pid = processID(of: service),
            let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") })
        else { return nil }
        let fields = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
        guard fields.count >= 2, let kibibytes = UInt64(fields[1]) else { return nil }
        return kibibytes * 1024
    }

    /// The last `lines` lines of `service`'s log, headed by its path.
    public func logTail(of service: StackService, lines: Int = 40) -> String {
        let file = configuration.logFile(of: service)
        let text = (try? String(contentsOf: file, encoding: .utf8)) ?? ""
        let tail = text.split(separator: "\n", omittingEmptySubsequences: false).suffix(lines).joined(separator: "\n")
        return "--- \(file.path), last \(lines) lines:\n\(tail)"
    }

    /// The environment `service` is started with: the test process's own without any FOYER_ variable, then the
    /// stack's settings (host, port, data directory, database, the others' addresses; for identity, stand-in
    /// identity providers allowed, and local mode with the outbox mailer unless ``StackConfiguration/identityLocalMode``
    /// is off; for the gateway, its HTTP port when ``StackConfiguration/gatewayServesHTTP`` is on; the metrics port when
    /// ``StackConfiguration/servesMetrics`` is on; the TLS files of
    /// ``StackConfiguration/tls``), then the shared and the per-service overrides.
    public func environment(of service: StackService) -> [String: String] {
        var environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("FOYER_") }
        environment["FOYER_HOST"] = "127.0.0.1"
        environment["FOYER_PORT"] = String(port(of: service))
        environment["FOYER_DATA_DIR"] = configuration.dataDirectory.path
        if service == .identity { environment["FOYER_ALLOW_TEST_IDENTITY_PROVIDERS"] = "1" }
        if service == .gateway, configuration.gatewayServesHTTP { environment["FOYER_HTTP_PORT"] = String(httpPort) }
        if service == .gateway, configuration.gatewayServesAdmin {
            environment["FOYER_ADMIN_PORT"] = String(adminPort)
        }
        if configuration.servesMetrics { environment["FOYER_METRICS_PORT"] = String(metricsPort(of: service)) }
        if service == .identity, configuration.identityLocalMode {
            environment["FOYER_LOCAL_MODE"] = "1"
            environment["FOYER_MAILER"] = "outbox"
        }
        for other in StackService.allCases {
            if let variable = other.addressVariable { environment[variable] = "127.0.0.1:\(port(of: other))" }
        }
        if case .postgres(let url, _) = configuration.database, let schema = configuration.database.schema(of: service)
        {
            environment["FOYER_DATABASE"] = url
            environment["FOYER_DATABASE_SCHEMA"] = schema
        }
        if let tls = configuration.tls { environment.merge(tls.environment(of: service)) { $1 } }
        environment.merge(configuration.sharedEnvironment) { $1 }
        environment.merge(state.withLock { $0.environment[service] } ?? [:]) { $1 }
        return environment
    }

    // MARK: Starting one service

    private func executable(_ service: StackService) -> URL {
        configuration.binDirectory.appendingPathComponent(service.executableName)
    }

    private func launch(_ service: StackService) throws {
        let log = configuration.logFile(of: service)
        let marker = "--- starting \(service) on 127.0.0.1:\(port(of: service)) at \(Date())\n"
        if let handle = try? FileHandle(forWritingTo: log) {
            _ = try? handle.seekToEnd()
            try? handle.write(contentsOf: Data(marker.utf8))
            try? handle.close()
        } else {
            _ = FileManager.default.createFile(atPath: log.path, contents: Data(marker.utf8))
        }
        let child = try ChildProcess.launch(
            executable(service),
            arguments: configuration.arguments[service] ?? [],
            environment: environment(of: service),
            log: log
        )
        state.withLock { $0.running[service] = child }
    }

    /// Polls until `service` accepts connections and its `--check-health` exits 0; fails at once if it exits.
    private func waitUntilHealthy(_ service: StackService) async throws {
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: configuration.startTimeout)
        while true {
            guard let child = state.withLock({ $0.running[service] }) else {
                throw StackProcessesError.startFailed("\(service) was stopped while starting")
            }
            if let exit = child.exit {
                throw StackProcessesError.startFailed("\(service) \(exit) while starting\n\(logTail(of: service))")
            }
            if LoopbackPorts.accepts(port(of: service)), servesHTTPIfAsked(service), servesMetricsIfAsked(service),
                try await answersHealthCheck(service)
            {
                return
            }
            guard clock.now < deadline else {
                throw StackProcessesError.startFailed(
                    "\(service) did not answer its health check within \(configuration.startTimeout)\n\(logTail(of: service))"
                )
            }
            try await Task.sleep(for: .milliseconds(50))
        }
    }

    /// Whether the gateway's HTTP and admin listeners accept connections, when the configuration asks for them.
    private func servesHTTPIfAsked(_ service: StackService) -> Bool {
        guard service == .gateway else { return true }
        return (!configuration.gatewayServesHTTP || LoopbackPorts.accepts(httpPort))
            && (!configuration.gatewayServesAdmin || LoopbackPorts.accepts(adminPort))
    }

    /// Whether `service`'s metrics endpoint accepts connections, when the configuration asks for one.
    private func servesMetricsIfAsked(_ service: StackService) -> Bool {
        !configuration.servesMetrics || LoopbackPorts.accepts(metricsPort(of: service))
    }

    private func answersHealthCheck(_ service: StackService) async throws -> Bool {
        var environment = environment(of: service)
        environment["FOYER_LOG_LEVEL"] = "critical"
        let check = try ChildProcess.launch(
            executable(service),
            arguments: ["--check-health"],
            environment: environment,
            log: nil
        )
        return await check.waitForExit(killingAfter: .seconds(10)).exit.isClean
    }
}
