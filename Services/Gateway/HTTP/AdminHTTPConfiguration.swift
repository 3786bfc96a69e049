public import NIOCore

/// The gateway's admin listener: where it listens and its limits. Meant for a private address (the default is
/// loopback, whatever the client listeners' host): it serves the admin API under `/admin/v1` and the console at
/// `/admin/`, over plain HTTP/1.1, to callers holding an admin key.
public struct AdminHTTPConfiguration: Sendable {
    /// Address to listen on. Default 127.0.0.1.
    public var host = "127.0.0.1"
    /// Port to listen on; 0 picks a free one (see `AdminHTTPServer.boundPort()`).
    public var port = 0
    /// Largest request body (the API's bodies are a few fields). 16 KiB.
    public var bodyByteCountMax = 16 * 1024
    /// Largest header field, and largest sum of all header fields. 16 KiB.
    public var headerByteCountMax = 16 * 1024
    /// Most header fields of one request.
    public var headerFieldCountMax = 100
    /// Time a call may take. A deletion runs the whole delete-everything saga in it. 60 s.
    public var requestTimeout: TimeAmount = .seconds(60)
    /// A connection with no request for this long is closed.
    public var idleTimeoutSeconds: Int64 = 60
    /// Most open connections; more are closed at once.
    public var connectionsMax = 64
    /// Most open connections from one address.
    public var connectionsPerSourceMax = 16
    /// Most open connections from one IPv6 /48, all its /64s together. 32.
    public var connectionsPerNetworkMax = 32
    /// A new connection that has not sent the start of its first request within this long is closed. 10 s.
    public var firstRequestTimeoutSeconds: Int64 = 10

    public init() {}

    /// Whether `host` is a loopback address (127.0.0.0/8, ::1, localhost): the only kind the gateway binds the admin
    /// listener to without `--admin-insecure`, since it speaks plain HTTP.
    public static func isLoopback(_ host: String) -> Bool {
        if host == "localhost" || host == "::1" { return true }
        let parts = host.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4 && parts[0] == "127" && parts.allSatisfy { UInt8($0) != nil }
    }
}
