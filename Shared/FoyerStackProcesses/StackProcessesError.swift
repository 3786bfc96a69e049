/// Why the stack could not be started, restarted or stopped cleanly. The message names the service and quotes the
/// end of its log.
public struct StackProcessesError: Error, Hashable, Sendable, CustomStringConvertible {
    private enum Code: Hashable, Sendable {
        case executablesMissing
        case startFailed
        case unexpectedExit
        case noFreePort
    }

    private let code: Code
    /// What went wrong, for the test report.
    public let message: String

    private init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.code == rhs.code }
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }
    public var description: String { message }

    /// The built executables were not found (or one of them is missing).
    public static func executablesMissing(_ message: String) -> Self { Self(.executablesMissing, message) }
    /// A service exited during start, or did not answer its health check in time.
    public static func startFailed(_ message: String) -> Self { Self(.startFailed, message) }
    /// A service exited other than with status 0 when it was asked to stop, or was found dead.
    public static func unexpectedExit(_ message: String) -> Self { Self(.unexpectedExit, message) }
    /// No loopback port could be reserved.
    public static func noFreePort(_ message: String) -> Self { Self(.noFreePort, message) }

    public static let executablesMissing = executablesMissing("")
    public static let startFailed = startFailed("")
    public static let unexpectedExit = unexpectedExit("")
    public static let noFreePort = noFreePort("")
}
