import FoyerTestSupport
import Testing

@testable import FoyerStorage

@Suite("Database configuration")
struct ConfigurationTests {
    static let dataDirectory = "/var/lib/foyer/accounts"

    static let accepted: [(setting: String, engine: DatabaseConfiguration.Engine)] = [
        ("sqlite:", .sqlite(path: "/var/lib/foyer/accounts/accounts.sqlite")),
        ("sqlite", .sqlite(path: "/var/lib/foyer/accounts/accounts.sqlite")),
        ("  sqlite:  ", .sqlite(path: "/var/lib/foyer/accounts/accounts.sqlite")),
        ("sqlite:other.db", .sqlite(path: "/var/lib/foyer/accounts/other.db")),
        ("sqlite:nested/dir/x.db", .sqlite(path: "/var/lib/foyer/accounts/nested/dir/x.db")),
        ("sqlite:../shared/x.db", .sqlite(path: "/var/lib/foyer/shared/x.db")),
        ("sqlite:/srv/data/x.sqlite", .sqlite(path: "/srv/data/x.sqlite")),
        ("sqlite:///srv/data/x.sqlite", .sqlite(path: "/srv/data/x.sqlite")),
        ("SQLite:x.db", .sqlite(path: "/var/lib/foyer/accounts/x.db")),
        ("postgres://foyer@db.internal/accounts", .postgres(url: "postgres://foyer@db.internal/accounts")),
        (
            "postgres://foyer:s3cret@127.0.0.1:6543/accounts",
            .postgres(url: "postgres://foyer:s3cret@127.0.0.1:6543/accounts")
        ),
        (
            "postgresql://foyer@db.internal:5432/accounts?tlsmode=require",
            .postgres(url: "postgresql://foyer@db.internal:5432/accounts?tlsmode=require")
        ),
        (
            "POSTGRES://foyer@db.internal/accounts?sslmode=disable",
            .postgres(url: "postgres://foyer@db.internal/accounts?sslmode=disable")
        ),
        ("postgres://foyer@db.internal", .postgres(url: "postgres://foyer@db.internal")),
    ]

    @Test("accepted settings", arguments: accepted)
    func acceptsValidSettings(setting: String, engine: DatabaseConfiguration.Engine) throws {
        let configuration = try DatabaseConfiguration.parse(
            setting,
            dataDirectory: Self.dataDirectory,
            defaultFileName: "accounts.sqlite"
        )
        #expect(configuration.engine == engine)
        #expect(configuration.engine.kind == (setting.lowercased().contains("sqlite") ? .sqlite : .postgres))
        #expect(configuration.sqliteSynchronous == .full)
        #expect(configuration.limits == DatabaseConfiguration.Limits())
    }

    static let rejected: [(setting: String, mentions: String)] = [
        ("", "empty"),
        ("   ", "empty"),
        ("/var/lib/foyer/x.sqlite", "sqlite:/var/lib/foyer/x.sqlite"),
        ("accounts.db", "neither"),
        (":memory:", "in-memory"),
        ("sqlite::memory:", "in-memory"),
        ("sqlite:file::memory:?cache=shared", "in-memory"),
        ("sqlite:dir/", "directory"),
        ("mysql://root:hunter2@db/accounts", "unsupported database scheme"),
        ("http://example.com/db", "unsupported database scheme"),
        ("postgres://db.internal/accounts", "no user"),
        ("postgres://foyer:hunter2@/accounts", "no host"),
        ("postgres://foyer:hunter2@db.internal/accounts?sslmode=maybe", "unknown sslmode"),
        ("postgres://foyer:hunter2@db.internal/accounts?application_name=x", "unsupported URL parameter"),
        ("postgres://foyer:hunter2@db.internal/accounts/extra", "more than a database name"),
    ]

    @Test("A URL without a scheme separator is a configuration error, not a crash, without the password")
    func lowercasingSchemeRejectsURLWithoutScheme() throws {
        let error = #expect(throws: FoyerStorageError.self) {
            try DatabaseConfiguration.lowercasingScheme(of: "postgres:foyer:hunter2@db.internal/accounts")
        }
        let message = try #require(error.map { "\($0)" })
        #expect(message.contains("no scheme"), "\(message)")
        #expect(!message.contains("hunter2"), "\(message)")
        #expect(try DatabaseConfiguration.lowercasingScheme(of: "POSTGRES://U@H/D") == "postgres://U@H/D")
    }

    @Test("rejected settings give a clear error without the password", arguments: rejected)
    func rejectsInvalidSettings(setting: String, mentions: String) throws {
        let error = #expect(throws: FoyerStorageError.self) {
            try DatabaseConfiguration.parse(
                setting,
                dataDirectory: Self.dataDirectory,
                defaultFileName: "accounts.sqlite"
            )
        }
        let message = try #require(error.map { "\($0)" })
        #expect(message.contains(mentions), "\(message)")
        #expect(!message.contains("hunter2"), "\(message)")
        #expect(
            message.contains("postgres://") || message.contains("in-memory") || message.contains("directory"),
            "\(message)"
        )
    }

    @Test("the description of a configuration never shows the password")
    func descriptionRedactsPassword() throws {
        let configuration = try DatabaseConfiguration.parse(
            "postgres://foyer:hunter2@db.internal:5432/accounts",
            dataDirectory: "",
            defaultFileName: ""
        )
        #expect("\(configuration)" == "postgres://foyer:***@db.internal:5432/accounts")
        #expect("\(configuration.engine)".contains("hunter2") == false)
        let withoutPassword = try DatabaseConfiguration.parse(
            "postgres://foyer@db.internal/accounts",
            dataDirectory: "",
            defaultFileName: ""
        )
        #expect("\(withoutPassword)" == "postgres://foyer@db.internal/accounts")
    }

    @Test("an unreachable server fails to open with a clear error and no password")
    func unreachableServerFailsClearly() async throws {
        var configuration = try DatabaseConfiguration.parse(
            "postgres://foyer:hunter2@127.0.0.1:1/accounts?tlsmode=disable",
            dataDirectory: "",
            defaultFileName: ""
        )
        configuration.limits.connectTimeout = .seconds(2)
        let error = await #expect(throws: FoyerStorageError.self) {
            _ = try await FoyerDatabase.open(configuration, logger: testDatabaseLogger)
        }
        let message = try #require(error.map { "\($0)" })
        #expect(message.contains("cannot open database"), "\(message)")
        #expect(message.contains("127.0.0.1:1"), "\(message)")
        #expect(!message.contains("hunter2"), "\(message)")
    }

    @Test("an SQLite file in a directory that cannot be created fails to open clearly")
    func unusableSQLitePathFailsClearly() async throws {
        let configuration = DatabaseConfiguration(engine: .sqlite(path: "/proc/foyer-cannot-exist/x.sqlite"))
        let error = await #expect(throws: FoyerStorageError.self) {
            _ = try await FoyerDatabase.open(configuration, logger: testDatabaseLogger)
        }
        #expect(error.map { "\($0)" }?.contains("/proc/foyer-cannot-exist") == true)
    }

    @Test("the binary column type per engine")
    func binaryColumnType() {
        #expect(DatabaseEngineKind.sqlite.binaryColumnType == "BLOB")
        #expect(DatabaseEngineKind.postgres.binaryColumnType == "BYTEA")
    }
}
