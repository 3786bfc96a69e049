/// Why a benchmark run could not finish.
public struct BenchError: Error, Equatable, CustomStringConvertible {
    private enum Code: Equatable {
        case noListeningPort
    }

    private let code: Code

    /// A server or relay came up without a bound TCP port to connect to.
    public static let noListeningPort = BenchError(code: .noListeningPort)

    public var description: String {
        switch code {
        case .noListeningPort: "a listener has no bound TCP port"
        }
    }
}
