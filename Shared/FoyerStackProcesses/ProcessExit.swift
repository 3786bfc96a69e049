/// How a child process ended.
public enum ProcessExit: Sendable, Hashable, CustomStringConvertible {
    /// It exited with this status.
    case exited(status: Int32)
    /// A signal ended it (SIGKILL is 9).
    case signalled(Int32)

    /// A clean stop: status 0.
    public var isClean: Bool { self == .exited(status: 0) }

    public var description: String {
        switch self {
        case .exited(let status): "exited with status \(status)"
        case .signalled(let signal): "ended by signal \(signal)"
        }
    }
}
