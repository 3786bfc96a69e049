import Foundation
import FoyerStackProcesses
import FoyerStorage
import FoyerTestSupport
import SQLKit

/// Read-only access to the databases of a running stack (each service's SQLite file, or its PostgreSQL schema), to
/// check what the services really stored rather than what they answer.
struct StackDatabases: Sendable {
    let identity: FoyerDatabase
    let guestQuota: FoyerDatabase
    let userData: FoyerDatabase
    let cleanup: FoyerDatabase

    static func open(_ configuration: StackConfiguration) async throws -> StackDatabases {
        var opened: [FoyerDatabase] = []
        do {
            for service in [StackService.identity, .guestQuota, .userData, .cleanup] {
                opened.append(
                    try await FoyerDatabase.open(
                        databaseConfiguration(service, configuration),
                        logger: testDatabaseLogger
                    )
                )
            }
        } catch {
            for database in opened { try? await database.close() }
            throw error
        }
        return StackDatabases(identity: opened[0], guestQuota: opened[1], userData: opened[2], cleanup: opened[3])
    }

    func close() async throws {
        for database in [identity, guestQuota, userData, cleanup] { try await database.close() }
    }

    private static func databaseConfiguration(
        _ service: StackService,
        _ configuration: StackConfiguration
    ) throws -> DatabaseConfiguration {
        var database: DatabaseConfiguration
        switch configuration.database {
        case .sqlite:
            database = try DatabaseConfiguration.parse(
                "sqlite:\(configuration.sqliteFile(of: service).path)",
                dataDirectory: configuration.dataDirectory.path,
                defaultFileName: "\(service).sqlite"
            )
        case .postgres(let url, _):
            database = try DatabaseConfiguration.parse(url, dataDirectory: "", defaultFileName: "")
            database.postgresSchema = configuration.database.schema(of: service)
        }
        database.limits = testDatabaseLimits()
        database.limits.postgresPoolSize = 1
        return database
    }

    // MARK: What is left of a user

    /// Every row of every service's database that still holds anything of a user, by table (empty when nothing is
    /// left): its uid, its `emails`, its provider `subjects`, or the digests the services keep of them, in any text
    /// or binary column of any table, found by reading each database's schema (`Leftovers` in FoyerTestSupport), so
    /// that a table added later is searched too. Refresh tokens hold none of these; ``orphanedRefreshTokens()``
    /// finds those whose session is gone.
    ///
    /// cleanup's deletion records are searched as well: they hold a keyed hash of the uid, which is not a needle
    /// (it is the one record of a deletion that is meant to stay, without personal data).
    func traces(of uid: String, emails: [String] = [], subjects: [String] = []) async throws -> [String: Int] {
        let needles = LeftoverNeedles(uid: uid, emails: emails, subjects: subjects)
        var found: [String: Int] = [:]
        for (service, database) in services {
            for (table, count) in try await Leftovers.find(needles, in: database) {
                found[table.hasPrefix("foyer_") ? "\(service).\(table)" : table, default: 0] += count
            }
        }
        return found
    }

    /// Every table the leftover search reads, by service, with its text and binary columns.
    func searchedTables() async throws -> [String: [String: [Leftovers.Column]]] {
        var tables: [String: [String: [Leftovers.Column]]] = [:]
        for (service, database) in services { tables[service] = try await Leftovers.searchableColumns(in: database) }
        return tables
    }

    private var services: [(String, FoyerDatabase)] {
        [("identity", identity), ("guest-quota", guestQuota), ("user-data", userData), ("cleanup", cleanup)]
    }

    /// Refresh tokens whose session no longer exists (a deletion that forgot them).
    func orphanedRefreshTokens() async throws -> Int {
        try await Self.count(
            identity,
            "SELECT COUNT(*) AS n FROM identity_refresh_tokens WHERE session_id NOT IN (SELECT id FROM identity_sessions)"
        )
    }

    /// `uid`'s documents as user-data stored them: "collection/key" sorted.
    func documentKeys(of uid: String) async throws -> [String] {
        try await userData.withConnection { sql in
            try await sql.raw("SELECT collection, doc_key FROM ud_documents WHERE uid = \(bind: uid)").all().map {
                try $0.decode(column: "collection", as: String.self) + "/"
                    + $0.decode(column: "doc_key", as: String.self)
            }
        }.sorted()
    }

    /// `uid`'s counter as guest-quota stored it (nil when it has no row).
    func counter(_ counter: String, of uid: String) async throws -> Int? {
        try await guestQuota.withConnection { sql in
            try await sql.raw("SELECT used FROM gq_usage WHERE uid = \(bind: uid) AND counter = \(bind: counter)")
                .first()?.decode(column: "used", as: Int.self)
        }
    }

    /// `uid`'s state in identity (`active`, `merging`, `deleting`), nil when identity no longer has it.
    func state(of uid: String) async throws -> String? {
        try await identity.withConnection { sql in
            try await sql.raw("SELECT state FROM identity_users WHERE uid = \(bind: uid)").first()?
                .decode(column: "state", as: String.self)
        }
    }

    /// Merges of `guest` that user-data and guest-quota recorded (one each for a merge done once).
    func mergeRecords(from guest: String) async throws -> (userData: Int, guestQuota: Int) {
        (
            try await Self.count(userData, "SELECT COUNT(*) AS n FROM ud_merge_ops WHERE from_uid = ", guest),
            try await Self.count(guestQuota, "SELECT COUNT(*) AS n FROM gq_merges WHERE from_uid = ", guest)
        )
    }

    /// Deletion records cleanup keeps (pseudonymous; one per deleted or merged user).
    func deletionRecordCount() async throws -> Int {
        try await Self.count(cleanup, "SELECT COUNT(*) AS n FROM cleanup_deletions")
    }

    /// Claims cleanup holds on accounts (none once sweeps are done).
    func claimCount() async throws -> Int {
        try await Self.count(cleanup, "SELECT COUNT(*) AS n FROM cleanup_claims")
    }

    /// What a guest sign-up leaves: identity's users, guest-quota's accounts, and the sources its admission counted.
    func signUpTraces() async throws -> (users: Int, quotaAccounts: Int, admittedSources: Int) {
        (
            try await Self.count(identity, "SELECT COUNT(*) AS n FROM identity_users"),
            try await Self.count(guestQuota, "SELECT COUNT(*) AS n FROM gq_accounts"),
            try await Self.count(guestQuota, "SELECT COUNT(*) AS n FROM gq_signup_buckets")
        )
    }

    private static func count(_ database: FoyerDatabase, _ query: String, _ uid: String? = nil) async throws -> Int {
        try await database.withConnection { sql in
            let statement: SQLQueryString = uid.map { "\(unsafeRaw: query)\(bind: $0)" } ?? "\(unsafeRaw: query)"
            return try await sql.raw(statement).first()?.decode(column: "n", as: Int.self) ?? 0
        }
    }
}

/// Drops the schemas a PostgreSQL stack used (nothing to do on SQLite, whose files go with the directory).
func dropSchemas(_ database: StackDatabase) async {
    guard case .postgres(let url, _) = database,
        var configuration = try? DatabaseConfiguration.parse(url, dataDirectory: "", defaultFileName: "")
    else { return }
    configuration.limits = testDatabaseLimits()
    configuration.limits.postgresPoolSize = 1
    guard let admin = try? await FoyerDatabase.open(configuration, logger: testDatabaseLogger) else { return }
    for service in StackService.allCases {
        guard let schema = database.schema(of: service) else { continue }
        try? await admin.transaction { sql in try await sql.raw("DROP SCHEMA IF EXISTS \(ident: schema) CASCADE").run()
        }
    }
    try? await admin.close()
}
