import Foundation
public import Logging

/// Where a service keeps its data and how hard the storage layer may push the database.
///
/// A service usually builds this from one setting (a flag or an environment variable) with
/// ``parse(_:dataDirectory:defaultFileName:)``:
///
/// ```swift
/// let config = try DatabaseConfiguration.parse(
///     environment["FOYER_DATABASE"] ?? "sqlite:",
///     dataDirectory: dataDirectory,          // e.g. "/var/lib/foyer/accounts"
///     defaultFileName: "accounts.sqlite"
/// )
/// ```
///
/// `description` never contains the password of a PostgreSQL URL, so the configuration can be logged.
public struct DatabaseConfiguration: Sendable, CustomStringConvertible {
    /// Which engine, and where.
    public enum Engine: Sendable, Equatable, CustomStringConvertible {
        /// An SQLite file (WAL mode). The path is absolute after ``DatabaseConfiguration/parse(_:dataDirectory:defaultFileName:)``;
        /// a relative path is resolved against the process's working directory.
        case sqlite(path: String)
        /// A PostgreSQL server: `postgres://user[:password]@host[:port]/database[?tlsmode=disable|prefer|require]`.
        case postgres(url: String)

        /// The kind of engine, without its location.
        public var kind: DatabaseEngineKind {
            switch self {
            case .sqlite: .sqlite
            case .postgres: .postgres
            }
        }

        /// The location with any password replaced by `***`.
        public var description: String {
            switch self {
            case .sqlite(let path): "sqlite:\(path)"
            case .postgres(let url): DatabaseConfiguration.redactingPassword(in: url)
            }
        }
    }

    /// How SQLite syncs a commit to disk (ignored for PostgreSQL).
    public enum SQLiteSynchronous: String, Sendable {
        /// `PRAGMA synchronous=FULL`: in WAL mode the WAL is fsynced at every commit, so a commit that returned
        /// survives a power loss or an OS crash. This is the default: accounts must not disappear after we said "done".
        case full = "FULL"
        /// `PRAGMA synchronous=NORMAL`: the database never corrupts, and commits survive a crash of the process,
        /// but the last commits before a power loss or OS crash may be rolled back. Faster; for data that can be lost.
        case normal = "NORMAL"
    }

    /// Bounds on connections and waiting. The defaults suit one service process on a small machine.
    public struct Limits: Sendable, Equatable {
        /// Most PostgreSQL connections this process opens (opened lazily, reused, idle ones closed after 5 minutes).
        /// Default 10. Size it so that `replicas × postgresPoolSize` stays below the server's `max_connections`.
        public var postgresPoolSize: Int = 10
        /// How long opening one PostgreSQL connection may take before it fails. Default 10 s.
        public var connectTimeout: Duration = .seconds(10)
        /// How long a caller waits for a free connection (PostgreSQL pool, SQLite writer or reader) before it fails
        /// with a timeout. Default 30 s. On SQLite every transaction waits here for the single writer.
        public var acquireTimeout: Duration = .seconds(30)
        /// PostgreSQL: the longest one statement may run. The server cancels a statement that runs longer (blocked
        /// on a lock, a runaway query: `statement_timeout`, set on every connection), and the client gives up on one
        /// that has had no answer 2 s after that (the server or the network is gone, or
        /// the statement was lost on a connection closing as it was sent) and closes its connection. Either way the
        /// call fails with ``DatabaseUnavailable`` (`timed-out`) instead of waiting for ever. `nil`: no limit.
        /// Default 30 s. It applies to migrations too: one that must run longer needs a larger value while it runs.
        public var postgresStatementTimeout: Duration? = .seconds(30)
        /// SQLite `busy_timeout`: how long a statement waits for a lock held by another connection (another process
        /// on the same file, or a checkpoint) before failing with `SQLITE_BUSY`. Default 5 s.
        public var sqliteBusyTimeout: Duration = .seconds(5)
        /// Most read-only SQLite connections, used by ``FoyerDatabase/withConnection(_:)``; WAL lets them read while
        /// the writer writes. Default 4. The database runs its SQLite calls on its own `sqliteReaderCount + 1` threads.
        public var sqliteReaderCount: Int = 4
        /// SQLite group commit: most transactions that share one physical transaction and one COMMIT (one fsync).
        /// Only transactions already waiting for the writer join a batch; none waits for company. Default 32; 1
        /// commits every transaction alone.
        public var sqliteGroupCommitMaxTransactions: Int = 32
        /// SQLite group commit: a batch that began this long ago takes no more transactions, which bounds how long
        /// its first transaction waits for the COMMIT. Default 5 ms.
        public var sqliteGroupCommitMaxDelay: Duration = .milliseconds(5)

        public init() {}
    }

    /// The engine and its location.
    public var engine: Engine
    /// Connection and waiting bounds.
    public var limits: Limits
    /// SQLite durability; see ``SQLiteSynchronous``. Default ``SQLiteSynchronous/full``.
    public var sqliteSynchronous: SQLiteSynchronous
    /// PostgreSQL only: when set, every connection runs `SET search_path TO <schema>`, so a service's tables
    /// (and its `foyer_migrations` record) live in that schema. The schema must exist. Tests use it to isolate
    /// each test in a fresh schema; deployments may use it to host several services in one database.
    public var postgresSchema: String?
    /// Level at which every SQL statement is logged (with its bound values), or `nil` (default) for none.
    /// Bound values can be secrets such as token hashes: enable only while debugging.
    public var queryLogLevel: Logger.Level?

    public init(
        engine: Engine,
        limits: Limits = Limits(),
        sqliteSynchronous: SQLiteSynchronous = .full,
        postgresSchema: String? = nil,
        queryLogLevel: Logger.Level? = nil
    ) {
        self.engine = engine
        self.limits = limits
        self.sqliteSynchronous = sqliteSynchronous
        self.postgresSchema = postgresSchema
        self.queryLogLevel = queryLogLevel
    }

    public var description: String {
        var text = "\(self.engine)"
        if let schema = self.postgresSchema { text += " (schema \(schema))" }
        return text
    }

    /// Reads a database setting.
    ///
    /// Accepted forms:
    /// - `postgres://user[:password]@host[:port]/database[?tlsmode=disable|prefer|require]` (also `postgresql://`);
    ///   the user and the host are required. TLS defaults to `prefer`.
    /// - `sqlite:` or `sqlite` alone: the file `defaultFileName` in `dataDirectory`.
    /// - `sqlite:PATH`: an absolute `PATH`, or one relative to `dataDirectory` (`sqlite:///abs/path` works too).
    ///
    /// Anything else (an empty string, a bare path, `:memory:`, another scheme, a URL without host or user) throws
    /// ``FoyerStorageError/invalidConfiguration(_:)`` with a message naming the accepted forms. Messages never
    /// contain the password.
    public static func parse(
        _ value: String,
        dataDirectory: String,
        defaultFileName: String
    ) throws -> DatabaseConfiguration {
        let text = value.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !text.isEmpty else {
            throw FoyerStorageError.invalidConfiguration("empty database setting; \(acceptedForms)")
        }
        let lowered = text.lowercased()
        if lowered == "sqlite" || lowered.hasPrefix("sqlite:") {
            let path = try sqlitePath(in: text, dataDirectory: dataDirectory, defaultFileName: defaultFileName)
            return DatabaseConfiguration(engine: .sqlite(path: path))
        }
        if lowered.hasPrefix("postgres://") || lowered.hasPrefix("postgresql://") {
            return DatabaseConfiguration(engine: .postgres(url: try postgresURL(in: text)))
        }
        throw unrecognizedSetting(text)
    }

    /// The accepted forms, for error messages.
    private static let acceptedForms =
        "expected postgres://user[:password]@host[:port]/database, or sqlite:PATH (relative to the data directory), or sqlite: for the default file"

    /// The absolute, standardised file path of an `sqlite` or `sqlite:PATH` setting.
    private static func sqlitePath(
        in text: String,
        dataDirectory: String,
        defaultFileName: String
    ) throws -> String {
        var path = text.lowercased() == "sqlite" ? "" : String(text.dropFirst("sqlite:".count))
        if path.hasPrefix("//") { path.removeFirst(2) }  // sqlite:///abs/path and sqlite://relative
        if path.hasPrefix(":memory:") || path.lowercased().hasPrefix("file::memory:") || path.contains("mode=memory") {
            throw FoyerStorageError.invalidConfiguration(
                "in-memory SQLite ('\(text)') is not supported: the storage layer needs a file (WAL, several connections); use a file in a temporary directory"
            )
        }
        if path.isEmpty {
            guard !defaultFileName.isEmpty else {
                throw FoyerStorageError.invalidConfiguration(
                    "'\(text)' names no file and no default file name was given"
                )
            }
            path = defaultFileName
        }
        if path.hasSuffix("/") {
            throw FoyerStorageError.invalidConfiguration("'\(text)' names a directory, not an SQLite file")
        }
        if !path.hasPrefix("/") {
            guard !dataDirectory.isEmpty else {
                throw FoyerStorageError.invalidConfiguration(
                    "'\(text)' is a relative path but no data directory was given"
                )
            }
            path = URL(fileURLWithPath: dataDirectory, isDirectory: true).appendingPathComponent(path).path
        }
        return URL(fileURLWithPath: path).standardizedFileURL.path
    }

    /// A checked `postgres://` or `postgresql://` URL, its scheme in lower case.
    private static func postgresURL(in text: String) throws -> String {
        let redacted = redactingPassword(in: text)
        guard let components = URLComponents(string: text) else {
            throw FoyerStorageError.invalidConfiguration(
                "'\(redacted)' is not a valid URL (percent-encode special characters in the user and password); \(acceptedForms)"
            )
        }
        guard let host = components.host, !host.isEmpty else {
            throw FoyerStorageError.invalidConfiguration("'\(redacted)' has no host; \(acceptedForms)")
        }
        guard let user = components.user, !user.isEmpty else {
            throw FoyerStorageError.invalidConfiguration("'\(redacted)' has no user name; \(acceptedForms)")
        }
        let database = components.path.drop(while: { $0 == "/" })
        if database.contains("/") {
            throw FoyerStorageError.invalidConfiguration(
                "'\(redacted)' has more than a database name in its path; \(acceptedForms)"
            )
        }
        try checkPostgresParameters(components.queryItems ?? [], in: redacted)
        return try lowercasingScheme(of: text)
    }

    /// Accepts only a known TLS mode among the URL's parameters.
    private static func checkPostgresParameters(_ items: [URLQueryItem], in redacted: String) throws {
        let modes = ["disable", "false", "prefer", "allow", "true", "require", "verify-ca", "verify-full"]
        for item in items {
            switch item.name.lowercased() {
            case "tlsmode", "sslmode", "tls", "ssl":
                guard let mode = item.value, modes.contains(mode) else {
                    throw FoyerStorageError.invalidConfiguration(
                        "'\(redacted)': unknown \(item.name) '\(item.value ?? "")'; use disable, prefer or require"
                    )
                }
            default:
                throw FoyerStorageError.invalidConfiguration(
                    "'\(redacted)': unsupported URL parameter '\(item.name)'; only tlsmode is understood"
                )
            }
        }
    }

    /// The URL with its scheme in lower case (the driver matches it exactly) and everything else as given.
    static func lowercasingScheme(of url: String) throws -> String {
        guard let schemeEnd = url.range(of: "://")?.lowerBound else {
            // Not echoed: without `://` the password cannot be told apart to redact it.
            throw FoyerStorageError.invalidConfiguration("the database URL has no scheme; \(acceptedForms)")
        }
        return url[..<schemeEnd].lowercased() + url[schemeEnd...]
    }

    /// The error for a setting that is neither SQLite nor PostgreSQL.
    private static func unrecognizedSetting(_ text: String) -> FoyerStorageError {
        let redacted = redactingPassword(in: text)
        if text.lowercased().contains("://") {
            return .invalidConfiguration("unsupported database scheme in '\(redacted)'; \(acceptedForms)")
        }
        if text == ":memory:" {
            return .invalidConfiguration("in-memory SQLite is not supported; \(acceptedForms)")
        }
        return .invalidConfiguration(
            "'\(redacted)' is neither a PostgreSQL URL nor an SQLite setting (write sqlite:\(text) for an SQLite file); \(acceptedForms)"
        )
    }

    /// Replaces the password of `scheme://user:password@host...` with `***`. Works on malformed URLs too.
    static func redactingPassword(in url: String) -> String {
        guard let schemeEnd = url.range(of: "://") else { return url }
        let authorityStart = schemeEnd.upperBound
        let authorityEnd =
            url[authorityStart...].firstIndex(where: { $0 == "/" || $0 == "?" || $0 == "#" }) ?? url.endIndex
        let authority = url[authorityStart..<authorityEnd]
        guard let at = authority.lastIndex(of: "@") else { return url }
        let userInfo = authority[..<at]
        guard let colon = userInfo.firstIndex(of: ":") else { return url }
        return String(url[..<url.index(after: colon)]) + "***" + String(url[at...])
    }
}

/// The kind of database engine, for the rare statement that must differ between engines.
public enum DatabaseEngineKind: String, Sendable, Equatable, CaseIterable, CustomStringConvertible {
    case sqlite
    case postgres

    public var description: String { self.rawValue }

    /// Column type for binary values: `BLOB` on SQLite, `BYTEA` on PostgreSQL. Bind values with ``SQLBytes`` and
    /// read them with `SQLRow.decodeBytes(column:)`.
    public var binaryColumnType: String {
        switch self {
        case .sqlite: "BLOB"
        case .postgres: "BYTEA"
        }
    }
}
