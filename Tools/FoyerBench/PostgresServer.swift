import Foundation
import FoyerStackProcesses
import FoyerStorage
import Logging
import SQLKit

/// What the bench does to the PostgreSQL server its rows run on, outside the services.
enum PostgresServer {
    /// Turns fsync, synchronous commit and full-page writes back on (`ALTER SYSTEM`, then a reload): the throwaway
    /// server starts with them off, and the rows compare against SQLite committing with `synchronous=FULL`.
    static func makeDurable(url: String, logger: Logger) async throws {
        try await withAdmin(url: url, logger: logger) { sql in
            for setting in ["fsync", "synchronous_commit", "full_page_writes"] {
                try await sql.raw("ALTER SYSTEM SET \(unsafeRaw: setting) = on").run()
            }
            try await sql.raw("SELECT pg_reload_conf()").run()
        }
    }

    /// The server's version and commit settings, for the report's heading: e.g. `PostgreSQL 15.10, fsync on,
    /// synchronous_commit on`.
    static func describe(url: String, logger: Logger) async throws -> String {
        try await withAdmin(url: url, logger: logger) { sql in
            var parts: [String] = []
            for setting in ["server_version", "fsync", "synchronous_commit"] {
                let value =
                    try await sql.raw("SELECT current_setting(\(bind: setting)) AS value").first()?
                    .decode(column: "value", as: String.self) ?? "?"
                parts.append(setting == "server_version" ? "PostgreSQL \(value)" : "\(setting) \(value)")
            }
            return parts.joined(separator: ", ")
        }
    }

    /// Drops the schemas a stack's services made (`--postgres-url` may name a server that outlives the bench).
    static func dropSchemas(of database: StackDatabase, logger: Logger) async throws {
        guard case .postgres(let url, _) = database else { return }
        try await withAdmin(url: url, logger: logger) { sql in
            for service in StackService.allCases {
                guard let schema = database.schema(of: service) else { continue }
                try await sql.raw("DROP SCHEMA IF EXISTS \(ident: schema) CASCADE").run()
            }
        }
    }

    /// A database of `service`'s schema in a running stack, for seeding rows beside the service.
    static func configuration(of service: StackService, in database: StackDatabase) throws -> DatabaseConfiguration {
        guard case .postgres(let url, _) = database else {
            throw BenchFailure("\(service) does not run on PostgreSQL in this stack")
        }
        var configuration = try DatabaseConfiguration.parse(url, dataDirectory: "", defaultFileName: "")
        configuration.postgresSchema = database.schema(of: service)
        configuration.limits.postgresPoolSize = 2
        return configuration
    }

    private static func withAdmin<T: Sendable>(
        url: String,
        logger: Logger,
        _ body: (any SQLDatabase) async throws -> T
    ) async throws -> T {
        var configuration = try DatabaseConfiguration.parse(url, dataDirectory: "", defaultFileName: "")
        configuration.limits.postgresPoolSize = 1
        let admin = try await FoyerDatabase.open(configuration, logger: logger)
        do {
            let result = try await admin.withConnection { sql in try await body(sql) }
            try await admin.close()
            return result
        } catch {
            try? await admin.close()
            throw error
        }
    }
}
