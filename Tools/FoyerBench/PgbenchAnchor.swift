import Foundation
import FoyerStackProcesses

/// What PostgreSQL itself does with a service's hottest transaction: `pgbench` running the same statements, in the
/// same order and transaction, on the service's own tables in the same server, with as many clients as the Foyer
/// row had calls in flight. Foyer's rate over it says how much of the database's speed the service keeps; the rest
/// is the service (its pool, its round trips, its event-loop hops), not PostgreSQL.
///
/// Each script runs twice: with named prepared statements (`-M prepared`, PostgreSQL at its best) and with the
/// extended protocol's unnamed statements (`-M extended`: parsed and planned on every execution, which is what
/// PostgresNIO sends for every query Foyer makes). The second rate over the first is what statement preparation
/// costs PostgreSQL; Foyer's rate over the second is what is left to the service.
struct PgbenchAnchor: Codable {
    /// The Foyer row it anchors: its name and path in ``StackReport/throughput``.
    var row: String
    var path: String
    var transactionsPerSecond: Double
    /// The same transactions with unnamed statements, each parsed and planned on every execution (nil in reports
    /// written before it was measured).
    var unpreparedTransactionsPerSecond: Double?

    /// The transactions, each a pgbench script over the tables of the service's schema (`SCHEMA` is replaced).
    /// Each client is one uid (`:client_id`), as each worker of the Foyer row writes as one account.
    static let scripts: [(row: String, path: String, service: StackService, setup: String, script: String)] = [
        (
            "quota consume", "guest-quota", .guestQuota,
            """
            INSERT INTO SCHEMA.gq_accounts (uid, plan, created_at, updated_at)
            SELECT 'pgbench-' || n, 'bench', 0, 0 FROM generate_series(0, 1023) AS n ON CONFLICT DO NOTHING;
            """,
            // GuestQuotaStore.consume: the account's plan, the key's record, the conditional upsert of the counter.
            """
            \\set key random(1, 9000000000000000)
            BEGIN;
            SELECT plan FROM SCHEMA.gq_accounts WHERE uid = 'pgbench-' || :client_id;
            INSERT INTO SCHEMA.gq_consumptions (uid, idempotency_key, counter, amount, refunded, created_at)
                VALUES ('pgbench-' || :client_id, 'k' || :key, 'documents', 1, false, 0)
                ON CONFLICT (uid, idempotency_key) DO NOTHING RETURNING uid;
            INSERT INTO SCHEMA.gq_usage (uid, counter, used) VALUES ('pgbench-' || :client_id, 'documents', 1)
                ON CONFLICT (uid, counter) DO UPDATE SET used = gq_usage.used + excluded.used
                WHERE gq_usage.used + excluded.used <= 9000000000000000 RETURNING used;
            COMMIT;
            """
        ),
        (
            "guest sign-in", "identity", .identity, "",
            // IdentityCore.createGuest of a new key: the key claimed, the user, its first session and refresh token.
            """
            \\set key random(1, 9000000000000000)
            BEGIN;
            INSERT INTO SCHEMA.identity_guest_keys (key_hash, uid, session_id, created_at)
                VALUES (sha256(('k' || :key)::bytea), 'u' || :key, 's' || :key, 0)
                ON CONFLICT (key_hash) DO NOTHING RETURNING uid;
            INSERT INTO SCHEMA.identity_users (uid, is_anonymous, state, merge_into, operation_id, operation_detail,
                    state_since, created_at, last_activity_at, tokens_not_before, plan, roles)
                VALUES ('u' || :key, true, 'active', NULL, NULL, NULL, NULL, 0, 0, 0, NULL, '');
            INSERT INTO SCHEMA.identity_sessions (id, uid, created_at, last_used_at, absolute_expires_at, revoked_at)
                VALUES ('s' || :key, 'u' || :key, 0, 0, 0, NULL);
            INSERT INTO SCHEMA.identity_refresh_tokens
                    (token_hash, session_id, generation, created_at, rotated_at, successor_hash, successor_wrapped)
                VALUES (sha256(('t' || :key)::bytea), 's' || :key, 0, 0, NULL, NULL, NULL);
            COMMIT;
            """
        ),
        (
            "document put (256 B)", "user-data", .userData, "",
            // DocumentStore.put: the uid's shared advisory lock, the two write guards, the upsert of a new key.
            """
            \\set key random(1, 9000000000000000)
            BEGIN;
            SELECT pg_advisory_xact_lock_shared(:client_id);
            SELECT uid FROM SCHEMA.ud_deleted_uids WHERE uid = 'pgbench-' || :client_id;
            SELECT op FROM SCHEMA.ud_merge_ops WHERE from_uid = 'pgbench-' || :client_id LIMIT 1;
            INSERT INTO SCHEMA.ud_documents (uid, collection, doc_key, body, body_size, version, updated_at)
                VALUES ('pgbench-' || :client_id, 'bench', 'doc-' || :key, decode(repeat('61', 256), 'hex'), 256, 1, 0)
                ON CONFLICT (uid, collection, doc_key) DO UPDATE SET
                    body = excluded.body, body_size = excluded.body_size,
                    version = ud_documents.version + 1, updated_at = excluded.updated_at
                RETURNING version;
            COMMIT;
            """
        ),
    ]

    /// Runs every script against `database`'s schemas: `transactions` in all over `clients` clients (the Foyer row's
    /// calls and calls in flight); none when `pgbench` is missing (`make deps` installs PostgreSQL, which brings it)
    /// or the stack is not on PostgreSQL. A count, not `-T`: pgbench ends a timed run on SIGALRM, which a child of
    /// this process may inherit blocked.
    static func measure(database: StackDatabase, clients: Int, transactions: Int) throws -> [PgbenchAnchor] {
        guard case .postgres(let url, _) = database else { return [] }
        var anchors: [PgbenchAnchor] = []
        for entry in scripts {
            guard let schema = database.schema(of: entry.service) else { continue }
            let quoted = "\"\(schema)\""
            if !entry.setup.isEmpty {
                _ = try pgbench(
                    ["-n", "-t", "1", "-c", "1"],
                    script: entry.setup.replacingOccurrences(of: "SCHEMA", with: quoted),
                    url: url
                )
            }
            func run(_ mode: String) throws -> Double? {
                try pgbench(
                    ["-n", "-M", mode, "-c", "\(clients)", "-j", "2", "-t", "\(max(transactions / clients, 1))"],
                    script: entry.script.replacingOccurrences(of: "SCHEMA", with: quoted),
                    url: url
                ).flatMap(transactionsPerSecond)
            }
            guard let tps = try run("prepared") else { continue }
            anchors.append(
                PgbenchAnchor(
                    row: entry.row,
                    path: entry.path,
                    transactionsPerSecond: tps,
                    unpreparedTransactionsPerSecond: try run("extended")
                )
            )
        }
        return anchors
    }

    /// `tps = 4302.1 (without initial connection time)`.
    private static func transactionsPerSecond(_ output: String) -> Double? {
        guard let line = output.split(separator: "\n").first(where: { $0.hasPrefix("tps = ") }) else { return nil }
        return Double(line.dropFirst("tps = ".count).prefix { $0.isNumber || $0 == "." })
    }

    /// pgbench's output, or nil when it is not installed; throws when it ran and failed.
    private static func pgbench(_ arguments: [String], script: String, url: String) throws -> String? {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent(
            "foyer-pgbench-\(UUID().uuidString).sql"
        )
        try script.write(to: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: file) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["pgbench"] + arguments + ["-f", file.path, url]
        // stderr to a file: a pipe nobody reads while stdout is read would stop pgbench once it fills.
        let errorFile = file.appendingPathExtension("err")
        _ = FileManager.default.createFile(atPath: errorFile.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: errorFile) }
        let output = Pipe()
        process.standardOutput = output
        process.standardError = try FileHandle(forWritingTo: errorFile)
        do { try process.run() } catch { return nil }
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        let errorText = (try? String(contentsOf: errorFile, encoding: .utf8)) ?? ""
        if process.terminationStatus == 127 { return nil }
        guard process.terminationStatus == 0 else {
            throw BenchFailure("pgbench failed (\(process.terminationStatus)): \(errorText.suffix(600))")
        }
        return text
    }
}
