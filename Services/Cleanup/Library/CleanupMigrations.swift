import FoyerStorage

/// cleanup's tables. No uid is ever stored: accounts appear only as keyed hashes (`subject`), operation ids only as
/// keyed hashes (`operation_key`).
enum CleanupMigrations {
    static let service = "cleanup"

    static let all: [Migration] = [
        Migration(version: 1, name: "deletion records, claims, keys") { engine in
            [
                // One row per (operation, account) deleted: the pseudonymous id, why, when.
                """
                CREATE TABLE cleanup_deletions (
                    operation_key TEXT NOT NULL,
                    subject TEXT NOT NULL,
                    reason BIGINT NOT NULL,
                    deleted_at BIGINT NOT NULL,
                    PRIMARY KEY (operation_key, subject)
                )
                """,
                "CREATE INDEX cleanup_deletions_deleted_at ON cleanup_deletions (deleted_at)",
                // Which replica works on an account right now; the row is removed when it is done.
                """
                CREATE TABLE cleanup_claims (
                    subject TEXT PRIMARY KEY,
                    replica TEXT NOT NULL,
                    claimed_at BIGINT NOT NULL
                )
                """,
                "CREATE INDEX cleanup_claims_claimed_at ON cleanup_claims (claimed_at)",
                // The per-deployment key of the pseudonymous ids.
                """
                CREATE TABLE cleanup_keys (
                    name TEXT PRIMARY KEY,
                    material \(engine.binaryColumnType) NOT NULL,
                    created_at BIGINT NOT NULL
                )
                """,
            ]
        },
        Migration(version: 2, name: "last sweep per replica") { engine in
            [
                // The report of the last sweep each replica finished (its wire encoding), so `status` answers the
                // newest of any replica, also after a restart.
                """
                CREATE TABLE cleanup_sweeps (
                    replica TEXT PRIMARY KEY,
                    report \(engine.binaryColumnType) NOT NULL,
                    finished_at BIGINT NOT NULL
                )
                """
            ]
        },
    ]
}
