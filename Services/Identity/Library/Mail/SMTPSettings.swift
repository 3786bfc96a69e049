/// Where and how the SMTP mailer submits email links.
///
/// Use a submission server (a provider's or your own relay): `startTLS` on port 587 or `implicitTLS` on 465, with
/// credentials. `none` (no TLS) is only for a relay on the same host or private network and never carries
/// credentials.
public struct SMTPSettings: Sendable, Equatable, CustomStringConvertible {
    /// How the connection is protected.
    public enum Security: String, Sendable, CaseIterable {
        /// Plain connection, then `STARTTLS` before anything else; a server that does not offer it is refused.
        case startTLS = "starttls"
        /// TLS from the first byte (SMTPS, port 465).
        case implicitTLS = "tls"
        /// No TLS. Only for a relay on loopback or a private network; credentials are refused.
        case none
    }

    /// The server's host name (checked against its certificate) or address.
    public var host: String
    /// Default 587 (465 for `implicitTLS`, 25 for `none`).
    public var port: Int
    /// Default `startTLS`.
    public var security: Security
    /// `AUTH` user name; nil submits without authentication.
    public var username: String?
    /// `AUTH` password (PLAIN, or LOGIN when the server offers only that). Never logged.
    public var password: String?
    /// A PEM file of certificates to trust instead of the system's roots (a private relay's CA). Default nil.
    public var trustRootsFile: String?
    /// The name identity gives in `EHLO`. Default "localhost".
    public var ehloName: String = "localhost"
    /// How long a connection may take to open. Default 10 s.
    public var connectTimeout: Duration = .seconds(10)
    /// How long the server may take to answer a command (or to finish the TLS handshake). Default 20 s.
    public var commandTimeout: Duration = .seconds(20)
    /// Tries per message, the first included. Transient failures (4xx replies, connection errors, timeouts) are
    /// tried again; permanent ones (5xx) never. Default 3.
    public var attemptsMax: Int = 3
    /// The wait before the second try, doubled before each further one. Default 1 s.
    public var retryBackoff: Duration = .seconds(1)

    public init(host: String, port: Int? = nil, security: Security = .startTLS) {
        self.host = host
        self.security = security
        self.port =
            port
            ?? {
                switch security {
                case .startTLS: 587
                case .implicitTLS: 465
                case .none: 25
                }
            }()
    }

    /// Names the server and how it is reached; never the credentials.
    public var description: String {
        "smtp \(security.rawValue) \(host):\(port)\(username == nil ? "" : " with AUTH")"
    }

    func validate() throws {
        func require(_ condition: Bool, _ message: String) throws {
            if !condition { throw IdentityConfigurationError("smtp: \(message)") }
        }
        try require(!host.isEmpty, "the host must not be empty")
        try require((1...65535).contains(port), "the port must be 1 to 65535")
        try require((username == nil) == (password == nil), "a user name and a password go together")
        try require(
            username == nil || security != .none,
            "credentials are never sent without TLS; use starttls or tls"
        )
        try require(username.map { !$0.isEmpty && !$0.contains("\0") } ?? true, "the user name is not valid")
        try require(password.map { !$0.isEmpty && !$0.contains("\0") } ?? true, "the password is not valid")
        try require(
            !ehloName.isEmpty && ehloName.unicodeScalars.allSatisfy { $0.value > 0x20 && $0.value < 0x7F },
            "the EHLO name must be printable ASCII without spaces"
        )
        try require(connectTimeout > .zero && commandTimeout > .zero, "timeouts must be positive")
        try require((1...10).contains(attemptsMax), "attemptsMax must be 1 to 10")
        try require(retryBackoff >= .zero, "retryBackoff must not be negative")
    }
}
