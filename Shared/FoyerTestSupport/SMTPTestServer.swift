// Real SMTP servers for mailer tests: Python's aiosmtpd (smtp_server.py, next to this file) on 127.0.0.1, plain,
// STARTTLS or implicit TLS with a certificate from a throwaway CA, with or without AUTH, optionally answering the
// first commands of a stage with a failure, or accepting connections and never answering.

public import Foundation

/// One SMTP server started by ``SMTPTestServers``: its port, the CA file its certificate chains to, and what it saw.
public struct SMTPTestServer: Sendable {
    /// How the server protects connections.
    public enum Security: String, Sendable {
        case none, starttls, tls
    }

    /// A failure to answer instead of accepting: the first `times` commands of `stage` ("mail", "rcpt", "data")
    /// get `reply` (e.g. "451 4.3.0 Try again later").
    public struct Failure: Sendable, Encodable {
        public var stage: String
        public var reply: String
        public var times: Int

        public init(stage: String, reply: String, times: Int) {
            self.stage = stage
            self.reply = reply
            self.times = times
        }
    }

    /// What the server saw.
    public struct Report: Sendable, Decodable {
        public struct Message: Sendable, Decodable {
            /// The envelope sender and recipients.
            public var mailFrom: String
            public var rcptTos: [String]
            /// The message as it arrived, dot-stuffing undone.
            public var data: String
            /// The AUTH user name, if the client authenticated.
            public var login: String?
            /// Whether the message came over TLS (implicit or STARTTLS).
            public var tls: Bool
        }

        /// Connections accepted.
        public var connections: Int
        /// Commands received per stage ("mail", "rcpt", "data"), failed ones included.
        public var attempts: [String: Int]
        /// AUTH mechanisms the client used, in order.
        public var mechanisms: [String]
        /// Messages accepted.
        public var messages: [Message]
    }

    let id: Int
    public let port: Int
    /// The PEM file of the CA that signed the server's certificate (for `localhost` and 127.0.0.1).
    public let caFile: String
    let servers: SMTPTestServers

    /// What the server saw so far.
    public func report() async throws -> Report {
        try await servers.request(SMTPServerRequest(op: "report", id: id), as: Report.self)
    }
}

/// The helper process running test SMTP servers; one per test target is enough (servers are independent).
public final class SMTPTestServers: Sendable {
    private let python: PythonCoprocess

    public init() {
        python = PythonCoprocess(
            URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("smtp_server.py"),
            arguments: [],
            missingPackages: [3: "run `make deps` to install Python's aiosmtpd and cryptography"]
        )
    }

    /// Starts a server. With `auth` (user name, password) it requires AUTH with them; `mechanisms` limits the AUTH
    /// mechanisms it offers; `silent` makes one that accepts connections and never answers.
    public func start(
        security: SMTPTestServer.Security = .none,
        auth: (username: String, password: String)? = nil,
        mechanisms: [String]? = nil,
        failure: SMTPTestServer.Failure? = nil,
        silent: Bool = false
    ) async throws -> SMTPTestServer {
        struct Started: Decodable {
            var id: Int
            var port: Int
            var caFile: String
        }
        var request = SMTPServerRequest(op: "start")
        request.security = security.rawValue
        request.auth = auth.map { ["username": $0.username, "password": $0.password] }
        request.mechanisms = mechanisms
        request.fail = failure
        request.silent = silent
        let started = try await self.request(request, as: Started.self)
        return SMTPTestServer(id: started.id, port: started.port, caFile: started.caFile, servers: self)
    }

    /// Runs `body` with a server, stopping it afterwards.
    public func withServer<T>(
        security: SMTPTestServer.Security = .none,
        auth: (username: String, password: String)? = nil,
        mechanisms: [String]? = nil,
        failure: SMTPTestServer.Failure? = nil,
        silent: Bool = false,
        _ body: (SMTPTestServer) async throws -> T
    ) async throws -> T {
        let server = try await start(
            security: security,
            auth: auth,
            mechanisms: mechanisms,
            failure: failure,
            silent: silent
        )
        do {
            let result = try await body(server)
            try await stop(server)
            return result
        } catch {
            try? await stop(server)
            throw error
        }
    }

    /// Stops listening.
    public func stop(_ server: SMTPTestServer) async throws {
        struct Stopped: Decodable {}
        _ = try await request(SMTPServerRequest(op: "stop", id: server.id), as: Stopped.self)
    }

    func request<Answer: Decodable>(_ request: SMTPServerRequest, as: Answer.Type) async throws -> Answer {
        let line = try await python.request(try JSONEncoder().encode(request))
        return try JSONDecoder().decode(Answer.self, from: line)
    }
}

/// A request line to smtp_server.py.
struct SMTPServerRequest: Encodable {
    var op: String
    var id: Int?
    var security: String?
    var auth: [String: String]?
    var mechanisms: [String]?
    var fail: SMTPTestServer.Failure?
    var silent: Bool?
}
