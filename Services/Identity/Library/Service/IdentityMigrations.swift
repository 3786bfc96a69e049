import FoyerStorage

/// The identity schema. Times are BIGINT microseconds since the Unix epoch (`SQLTimestamp`) except
/// `tokens_not_before`, which is whole seconds (it is compared with a JWT's `iat`). Secrets are stored only as
/// SHA-256 (`*_hash`), never in clear, except the signing keys, which are sealed with the key-encryption key when
/// one is configured; see Services/Identity/README.md for each table.
enum IdentityMigrations {
    static let service = "identity"

    static let all: [Migration] = [
        Migration(version: 1, name: "users, credentials, sessions, tokens, keys") { engine in
            let binary = engine.binaryColumnType
            return [
                """
                CREATE TABLE identity_users (
                    uid TEXT PRIMARY KEY,
                    is_anonymous BOOLEAN NOT NULL,
                    state TEXT NOT NULL,
                    merge_into TEXT,
                    operation_id TEXT,
                    state_since BIGINT,
                    created_at BIGINT NOT NULL,
                    last_activity_at BIGINT NOT NULL,
                    tokens_not_before BIGINT NOT NULL
                )
                """,
                "CREATE INDEX identity_users_sweep ON identity_users (is_anonymous, state, last_activity_at, uid)",
                "CREATE INDEX identity_users_state ON identity_users (state, state_since)",
                """
                CREATE TABLE identity_emails (
                    email TEXT PRIMARY KEY,
                    uid TEXT NOT NULL UNIQUE,
                    verified BOOLEAN NOT NULL,
                    password_hash TEXT,
                    created_at BIGINT NOT NULL
                )
                """,
                """
                CREATE TABLE identity_provider_links (
                    issuer TEXT NOT NULL,
                    subject TEXT NOT NULL,
                    uid TEXT NOT NULL,
                    provider TEXT NOT NULL,
                    email TEXT,
                    email_trusted BOOLEAN NOT NULL,
                    created_at BIGINT NOT NULL,
                    PRIMARY KEY (issuer, subject),
                    UNIQUE (uid, provider)
                )
                """,
                """
                CREATE TABLE identity_sessions (
                    id TEXT PRIMARY KEY,
                    uid TEXT NOT NULL,
                    created_at BIGINT NOT NULL,
                    last_used_at BIGINT NOT NULL,
                    absolute_expires_at BIGINT NOT NULL,
                    revoked_at BIGINT
                )
                """,
                "CREATE INDEX identity_sessions_uid ON identity_sessions (uid)",
                "CREATE INDEX identity_sessions_last_used ON identity_sessions (last_used_at)",
                """
                CREATE TABLE identity_refresh_tokens (
                    token_hash \(binary) PRIMARY KEY,
                    session_id TEXT NOT NULL,
                    generation BIGINT NOT NULL,
                    created_at BIGINT NOT NULL,
                    rotated_at BIGINT,
                    successor_hash \(binary),
                    successor_wrapped \(binary)
                )
                """,
                "CREATE INDEX identity_refresh_tokens_session ON identity_refresh_tokens (session_id)",
                """
                CREATE TABLE identity_guest_keys (
                    key_hash \(binary) PRIMARY KEY,
                    uid TEXT NOT NULL,
                    session_id TEXT NOT NULL,
                    created_at BIGINT NOT NULL
                )
                """,
                "CREATE INDEX identity_guest_keys_uid ON identity_guest_keys (uid)",
                "CREATE INDEX identity_guest_keys_created ON identity_guest_keys (created_at)",
                """
                CREATE TABLE identity_email_links (
                    token_hash \(binary) PRIMARY KEY,
                    email TEXT NOT NULL,
                    purpose TEXT NOT NULL,
                    uid TEXT,
                    challenge \(binary) NOT NULL,
                    created_at BIGINT NOT NULL,
                    expires_at BIGINT NOT NULL,
                    consumed_at BIGINT,
                    failed_attempts BIGINT NOT NULL
                )
                """,
                "CREATE INDEX identity_email_links_email ON identity_email_links (email, created_at)",
                "CREATE INDEX identity_email_links_uid ON identity_email_links (uid)",
                """
                CREATE TABLE identity_login_failures (
                    email_hash \(binary) PRIMARY KEY,
                    failures BIGINT NOT NULL,
                    last_failure_at BIGINT NOT NULL,
                    blocked_until BIGINT NOT NULL
                )
                """,
                """
                CREATE TABLE identity_used_nonces (
                    nonce_hash \(binary) PRIMARY KEY,
                    uid TEXT,
                    expires_at BIGINT NOT NULL
                )
                """,
                "CREATE INDEX identity_used_nonces_uid ON identity_used_nonces (uid)",
                "CREATE INDEX identity_used_nonces_expiry ON identity_used_nonces (expires_at)",
                """
                CREATE TABLE identity_conflict_tickets (
                    ticket_hash \(binary) PRIMARY KEY,
                    holder_uid TEXT NOT NULL,
                    account_uid TEXT NOT NULL,
                    created_at BIGINT NOT NULL,
                    expires_at BIGINT NOT NULL,
                    redeemed_at BIGINT
                )
                """,
                "CREATE INDEX identity_conflict_tickets_holder ON identity_conflict_tickets (holder_uid, account_uid)",
                "CREATE INDEX identity_conflict_tickets_account ON identity_conflict_tickets (account_uid)",
                """
                CREATE TABLE identity_signing_keys (
                    kid TEXT PRIMARY KEY,
                    private_key \(binary) NOT NULL,
                    created_at BIGINT NOT NULL,
                    retired_at BIGINT
                )
                """,
                """
                CREATE TABLE identity_outbox (
                    id TEXT PRIMARY KEY,
                    recipient TEXT NOT NULL,
                    subject TEXT NOT NULL,
                    body TEXT NOT NULL,
                    created_at BIGINT NOT NULL
                )
                """,
                "CREATE INDEX identity_outbox_created ON identity_outbox (created_at)",
                "CREATE INDEX identity_outbox_recipient ON identity_outbox (recipient)",
                """
                CREATE TABLE identity_finished_operations (
                    kind TEXT NOT NULL,
                    operation_id TEXT NOT NULL,
                    finished_at BIGINT NOT NULL,
                    PRIMARY KEY (kind, operation_id)
                )
                """,
            ]
        },
        Migration(version: 2, name: "email links and failed passwords counted per client source") { engine in
            [
                // SHA-256 of the client source's key (its IPv4 address or IPv6 /64); NULL for internal callers.
                "ALTER TABLE identity_email_links ADD COLUMN source_hash \(engine.binaryColumnType)",
                "CREATE INDEX identity_email_links_source ON identity_email_links (source_hash, created_at)",
                "CREATE INDEX identity_email_links_created ON identity_email_links (created_at)",
                // The address a failed-password count belongs to (its per-address key), so that deleting the
                // user finds the per-source counts too; NULL on rows written before (per-address rows).
                "ALTER TABLE identity_login_failures ADD COLUMN address_hash \(engine.binaryColumnType)",
                "CREATE INDEX identity_login_failures_address ON identity_login_failures (address_hash)",
            ]
        },
        Migration(
            version: 3,
            name: "guest keys count their sessions",
            statements: [
                // The sessions a guest sign-in key has created (its first and the replays beside it); rows from
                // before count one. `session_id` stays the first session's.
                "ALTER TABLE identity_guest_keys ADD COLUMN sessions_created BIGINT NOT NULL DEFAULT 1"
            ]
        ),
        Migration(
            version: 4,
            name: "signing keys sealed with a key-encryption key",
            statements: [
                // The id of the key-encryption key that sealed `private_key` (then AES-256-GCM nonce, ciphertext
                // and tag, the kid as associated data); NULL: `private_key` is the seed in clear, as every row before.
                "ALTER TABLE identity_signing_keys ADD COLUMN kek_id TEXT"
            ]
        ),
        Migration(version: 5, name: "admin keys, the admin audit log, users listed in pages") { engine in
            [
                // An admin key: SHA-256 of the whole key text (high-entropy, so no KDF); the key id is its
                // identity, the name only a label.
                """
                CREATE TABLE identity_admin_keys (
                    key_id TEXT PRIMARY KEY,
                    key_hash \(engine.binaryColumnType) NOT NULL,
                    name TEXT NOT NULL,
                    created_at BIGINT NOT NULL,
                    created_by TEXT NOT NULL,
                    revoked_at BIGINT,
                    last_used_at BIGINT
                )
                """,
                // One row per admin action: who (key id and its name then), what, on what (a uid or a key id,
                // never an email), how it ended (NULL while it runs or if it never ended).
                """
                CREATE TABLE identity_admin_actions (
                    id \(engine == .postgres
                        ? "BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY" : "INTEGER PRIMARY KEY AUTOINCREMENT"),
                    at BIGINT NOT NULL,
                    key_id TEXT NOT NULL,
                    key_name TEXT NOT NULL,
                    action TEXT NOT NULL,
                    target TEXT,
                    outcome TEXT,
                    ended_at BIGINT
                )
                """,
                "CREATE INDEX identity_admin_actions_at ON identity_admin_actions (at)",
                // listUsers pages by (created_at, uid) or (last_activity_at, uid), both directions, for guests,
                // members, or both (two index ranges merged).
                "CREATE INDEX identity_users_created ON identity_users (is_anonymous, created_at, uid)",
                "CREATE INDEX identity_users_activity ON identity_users (is_anonymous, last_activity_at, uid)",
                // findUser by a provider identity's email, case-insensitively.
                "CREATE INDEX identity_provider_links_email ON identity_provider_links (lower(email))",
            ]
        },
        Migration(version: 7, name: "Sign in with Apple refresh tokens, revoked at deletion") { engine in
            [
                // One row per user that gave an authorization code: the refresh token Apple exchanged it for, sealed
                // with the key-encryption key named by kek_id (AES-256-GCM, the uid and client id as associated
                // data), or NULL with why the exchange failed. The deletion saga revokes the token at Apple, then
                // deletes the row.
                """
                CREATE TABLE identity_apple_tokens (
                    uid TEXT PRIMARY KEY,
                    client_id TEXT NOT NULL,
                    sealed_token \(engine.binaryColumnType),
                    kek_id TEXT,
                    exchange_error TEXT,
                    created_at BIGINT NOT NULL
                )
                """
            ]
        },
        Migration(version: 8, name: "events to the app's backend (a transactional outbox of webhooks)") { engine in
            [
                // One row per event, written in the transaction of the change it reports and delivered to the
                // webhook endpoints: `body` is the JSON delivered, byte for byte; `position` orders the outbox;
                // `sequence` counts the uid's events (from identity_users.event_sequence). A claimed row carries
                // `lease_until` while a replica sends it.
                """
                CREATE TABLE identity_events (
                    position \(engine == .postgres
                        ? "BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY" : "INTEGER PRIMARY KEY AUTOINCREMENT"),
                    id TEXT NOT NULL UNIQUE,
                    type TEXT NOT NULL,
                    uid TEXT NOT NULL,
                    sequence BIGINT NOT NULL,
                    occurred_at BIGINT NOT NULL,
                    body TEXT NOT NULL,
                    state TEXT NOT NULL,
                    attempts BIGINT NOT NULL,
                    next_attempt_at BIGINT NOT NULL,
                    lease_until BIGINT,
                    last_error TEXT,
                    delivered_at BIGINT
                )
                """,
                "CREATE INDEX identity_events_due ON identity_events (state, next_attempt_at, position)",
                "CREATE INDEX identity_events_uid ON identity_events (uid, position)",
                "CREATE INDEX identity_events_occurred ON identity_events (occurred_at)",
                // The last event sequence number given to the user (0: none yet).
                "ALTER TABLE identity_users ADD COLUMN event_sequence BIGINT NOT NULL DEFAULT 0",
            ]
        },
        Migration(
            version: 9,
            name: "plans and roles named in access tokens",
            statements: [
                // The plan an operator set (NULL: the guest or member plan, by `is_anonymous`); the app-defined
                // roles, sorted and joined by commas ('' for none). Both are written into every access token.
                "ALTER TABLE identity_users ADD COLUMN plan TEXT",
                "ALTER TABLE identity_users ADD COLUMN roles TEXT NOT NULL DEFAULT ''",
            ]
        ),
        Migration(version: 10, name: "the gateways' shared memory of finished operations") { engine in
            [
                // Opaque to identity: `id` and `check` are SHA-256 digests the gateway derives from the operation
                // and the request, `sealed` the answer sealed under a key only the gateways can derive. Pruned
                // once past `expires_at`.
                """
                CREATE TABLE identity_operation_answers (
                    id \(engine.binaryColumnType) PRIMARY KEY,
                    check_digest \(engine.binaryColumnType) NOT NULL,
                    sealed \(engine.binaryColumnType) NOT NULL,
                    expires_at BIGINT NOT NULL
                )
                """,
                "CREATE INDEX identity_operation_answers_expiry ON identity_operation_answers (expires_at)",
            ]
        },
        Migration(
            version: 11,
            name: "an email change remembers the session that asked for it",
            statements: [
                // The session that asked for an email change (NULL for the other kinds of link): completing the
                // change needs it still live. Rows from before have none and cannot complete (ask again).
                "ALTER TABLE identity_email_links ADD COLUMN session_id TEXT"
            ]
        ),
        Migration(
            version: 12,
            name: "a merge keeps its policy and a deletion its reason",
            statements: [
                // The merge policy (merging) or deletion reason (deleting) the operation began with, as its wire
                // value, so whoever finishes it (a retry, cleanup's recovery) finishes it as it was asked. Rows from
                // before have none: keep-both and user-request, as the recovery assumed then.
                "ALTER TABLE identity_users ADD COLUMN operation_detail BIGINT"
            ]
        ),
        Migration(
            version: 13,
            name: "signing keys of several algorithms",
            statements: [
                // The JWS algorithm the key signs with (EdDSA, ES256 or RS256), which says what `private_key` holds:
                // the Ed25519 seed, SEC 1 DER or PKCS #1 DER (sealed or not, as `kek_id` says). Rows from before are
                // Ed25519 keys.
                "ALTER TABLE identity_signing_keys ADD COLUMN algorithm TEXT NOT NULL DEFAULT 'EdDSA'"
            ]
        ),
        Migration(version: 14, name: "sign-in and link emails carry a code") { engine in
            [
                // SHA-256 of the email's six-digit code with the row's token hash (`EmailCodeSecret`); NULL for a
                // row without a code (other kinds, links sent with delivery `link`, rows from before). The email
                // index finds an address's newest code.
                "ALTER TABLE identity_email_links ADD COLUMN code_hash \(engine.binaryColumnType)"
            ]
        },
        Migration(version: 15, name: "device keys and their challenges") { engine in
            let binary = engine.binaryColumnType
            return [
                // A guest's device key: the id is SHA-256 of the uncompressed point, so a key is registered once.
                """
                CREATE TABLE identity_device_keys (
                    key_id \(binary) PRIMARY KEY,
                    uid TEXT NOT NULL,
                    public_key \(binary) NOT NULL,
                    created_at BIGINT NOT NULL,
                    last_used_at BIGINT NOT NULL
                )
                """,
                "CREATE INDEX identity_device_keys_uid ON identity_device_keys (uid)",
                // Single-use challenges, kept as SHA-256 with a label; a row is deleted when tried, or by the
                // janitor once expired.
                """
                CREATE TABLE identity_device_key_challenges (
                    challenge_hash \(binary) PRIMARY KEY,
                    purpose TEXT NOT NULL,
                    created_at BIGINT NOT NULL,
                    expires_at BIGINT NOT NULL
                )
                """,
                "CREATE INDEX identity_device_key_challenges_expiry ON identity_device_key_challenges (expires_at)",
            ]
        },
    ]

    /// Every table, for tests that check nothing of a user is left.
    static let tables = [
        "identity_users", "identity_emails", "identity_provider_links", "identity_sessions",
        "identity_refresh_tokens", "identity_guest_keys", "identity_email_links", "identity_login_failures",
        "identity_used_nonces", "identity_conflict_tickets", "identity_signing_keys", "identity_outbox",
        "identity_finished_operations", "identity_admin_keys", "identity_admin_actions", "identity_apple_tokens",
        "identity_events", "identity_operation_answers", "identity_device_keys", "identity_device_key_challenges",
    ]
}
