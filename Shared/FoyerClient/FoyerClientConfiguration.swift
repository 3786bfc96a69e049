public import Foundation
import FoyerRPC
import NIOCore

/// How a `FoyerClient` reaches the gateway and looks after its session, with the defaults an app gets.
///
/// Two transports, one API: the binary protocol to `host`:`port` (the default), or the HTTP edge at `httpBaseURL`
/// through URLSession (`https://…`; `http://…` on loopback for development).
public struct FoyerClientConfiguration: Sendable {
    /// The gateway's binary listener. Default 127.0.0.1:7400.
    public var host: String = "127.0.0.1"
    public var port: Int = 7400
    /// Our name in the handshake, for the gateway's logs. Default "foyer-client".
    public var peerName: String = "foyer-client"
    /// The access token is refreshed before a call when less than this remains of it. Default 60 s.
    public var refreshMargin: Duration = .seconds(60)
    /// How long one call may take, retries included. Default 15 s.
    public var callTimeout: Duration = .seconds(15)
    /// TCP connect plus handshake. Default 3 s.
    public var connectTimeout: Duration = .seconds(3)
    /// Attempts per call where a retry is safe (not processed; or outcome unknown and idempotent). Default 3.
    public var maxAttempts: Int = 3
    /// Connections kept to the gateway. Default 1 (an app makes few calls at once).
    public var connectionsMax: Int = 1
    /// TLS to the gateway's binary listener; `nil` (the default): plaintext. Over HTTPS, URLSession always
    /// verifies the certificate; `tls.caFile` names a private CA to trust instead of the system's (Apple
    /// platforms only: on Linux URLSession cannot take one, and calls fail `invalid-input`).
    public var tls: TLS?
    /// The gateway's HTTP edge (`https://api.example.com`, `http://127.0.0.1:7480`); when set, calls go there
    /// through URLSession instead of the binary protocol to `host`:`port`. Default `nil`.
    public var httpBaseURL: URL?
    /// The longest HTTP answer body read; a longer one fails `internal`. Default 4 MiB (a page of documents is
    /// at most 1 MiB on the binary protocol, and base64 and JSON add a third).
    public var httpResponseByteCountMax: Int = 4 << 20
    /// The clock the access token's expiry is compared with (tests inject one).
    public var now: @Sendable () -> Date = { Date() }

    /// TLS 1.2 or 1.3 to the gateway, its certificate verified.
    public struct TLS: Sendable, Equatable {
        /// A PEM file of the certificate authorities to trust (a private CA); `nil`: the system's trust store.
        public var caFile: String?
        /// The name sent as SNI and checked against the certificate; `nil`: `host`. A certificate that names the IP
        /// address connected to is accepted too.
        public var serverName: String?

        public init(caFile: String? = nil, serverName: String? = nil) {
            self.caFile = caFile
            self.serverName = serverName
        }
    }

    public init(host: String = "127.0.0.1", port: Int = 7400) {
        self.host = host
        self.port = port
    }

    /// The gateway's HTTP edge at `httpBaseURL` (`https://host[:port]`, or `http://` on loopback).
    public init(httpBaseURL: URL) {
        self.init()
        self.httpBaseURL = httpBaseURL
    }

    /// Parses `https://HOST[:PORT]` or `http://HOST[:PORT]` (the HTTP edge), or `HOST:PORT` (`[v6]:PORT` for an
    /// IPv6 address), or `HOST` alone with the default port 7400 (the binary listener).
    public init(address: String) throws(FoyerError) {
        let text = address.trimmingCharacters(in: .whitespaces)
        let lowered = text.lowercased()
        if lowered.hasPrefix("https://") || lowered.hasPrefix("http://") {
            guard let url = URL(string: text), let host = url.host, !host.isEmpty,
                url.query == nil, url.user == nil, url.path.isEmpty || url.path == "/"
            else { throw .invalidInput("'\(text)' is not http(s)://HOST[:PORT]") }
            self.init(httpBaseURL: url)
            self.host = host
            self.port = url.port ?? (lowered.hasPrefix("https://") ? 443 : 80)
            return
        }
        let (host, port) = try Self.parseAddress(text, defaultPort: 7400)
        self.init(host: host, port: port)
    }

    /// `host:port` of the binary listener, or the HTTP edge's URL, as `StoredSession` keeps it (and
    /// `init(address:)` reads it back).
    public var address: String {
        if let httpBaseURL { return httpBaseURL.absoluteString }
        return host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
    }

    /// Splits `HOST:PORT` (or `[v6]:PORT`, or `HOST` alone, which gets `defaultPort`).
    public static func parseAddress(_ text: String, defaultPort: Int) throws(FoyerError) -> (host: String, port: Int) {
        let text = text.trimmingCharacters(in: .whitespaces)
        var host = text
        var portText: Substring?
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else { throw .invalidInput("'\(text)' is not HOST:PORT") }
            host = String(text[text.index(after: text.startIndex)..<close])
            let rest = text[text.index(after: close)...]
            if !rest.isEmpty {
                guard rest.hasPrefix(":") else { throw .invalidInput("'\(text)' is not [HOST]:PORT") }
                portText = rest.dropFirst()
            }
        } else if let colon = text.lastIndex(of: ":"), text.firstIndex(of: ":") == colon {
            host = String(text[..<colon])
            portText = text[text.index(after: colon)...]
        }
        guard !host.isEmpty else { throw .invalidInput("'\(text)' names no host") }
        guard let portText else { return (host, defaultPort) }
        guard let port = Int(portText), (1...65535).contains(port) else {
            throw .invalidInput("'\(portText)' in '\(text)' is not a port number")
        }
        return (host, port)
    }

    /// The RPC client's configuration for the gateway (which asks no cluster secret).
    func rpcConfiguration() -> RPCClientConfiguration {
        var configuration = RPCClientConfiguration(
            host: host,
            port: port,
            serviceName: "gateway",
            peerName: peerName,
            clusterSecret: nil
        )
        configuration.connectionsMax = max(1, connectionsMax)
        configuration.maxAttempts = max(1, maxAttempts)
        configuration.connectTimeout = TimeAmount(connectTimeout)
        configuration.defaultCallTimeout = TimeAmount(callTimeout)
        configuration.tls = tls.map { tls in
            RPCClientTLS(trustRoots: tls.caFile.map { .caFile($0) } ?? .system, serverName: tls.serverName)
        }
        return configuration
    }
}

extension TimeAmount {
    init(_ duration: Duration) {
        let (seconds, attoseconds) = duration.components
        self = .nanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
    }
}
