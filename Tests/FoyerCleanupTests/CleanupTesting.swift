import Foundation
import FoyerAPI
import FoyerCleanup
import FoyerCrypto
import FoyerRPC
import FoyerStorage
import FoyerTestSupport
import FoyerWire
import NIOCore
import SQLKit
import Testing

// MARK: - Cleanup replicas

/// A running cleanup replica and a client of it.
struct CleanupReplica: Sendable {
    let service: CleanupService
    let client: RPCClient

    func sweep(dryRun: Bool = false) async throws -> SweepReport {
        try await client.call(
            CleanupMethods.sweep,
            SweepRequest(dryRun: dryRun),
            options: CallOptions(timeout: .seconds(120))
        )
    }

    func status() async throws -> CleanupStatusResponse {
        try await client.call(CleanupMethods.status, Empty())
    }

    func deletions(limit: UInt64 = 1000) async throws -> [DeletionRecords.Record] {
        try await client.call(CleanupMethods.listDeletions, ListDeletionsRequest(limit: limit)).records
    }

    func recordDeletion(uid: String, operationID: String, reason: DeletionReason) async throws {
        _ = try await client.call(
            CleanupMethods.recordDeletion,
            RecordDeletionRequest(operationID: operationID, uid: uid, reason: reason)
        )
    }
}

/// A fixed pseudonym key for tests that compute pseudonymous ids themselves.
let testPseudonymKey: [UInt8] = Array(0..<32)

/// The pseudonymous id of `uid` under `key`, as README.md defines it: hex(HMAC-SHA-256(key, "foyer.cleanup.uid\0" + uid)).
func pseudonymousID(of uid: String, key: [UInt8] = testPseudonymKey) -> String {
    HMACSHA256.authenticationCode(key: key, message: Array("foyer.cleanup.uid\u{0}\(uid)".utf8))
        .map { String($0, radix: 16).count == 1 ? "0" + String($0, radix: 16) : String($0, radix: 16) }.joined()
}

extension CleanupCluster {
    /// A cleanup configuration against this cluster: the test clock, quick reconnects, a grace of one minute.
    func cleanupConfiguration(replica: String) -> CleanupConfiguration {
        func client(_ port: Int, _ service: String) -> RPCClientConfiguration {
            var configuration = RPCClientConfiguration(
                host: "127.0.0.1",
                port: port,
                serviceName: service,
                peerName: "cleanup-\(replica)",
                clusterSecret: testClusterSecret
            )
            configuration.reconnectBackoffMax = .milliseconds(20)
            configuration.retryBackoffMax = .milliseconds(20)
            return configuration
        }
        var configuration = CleanupConfiguration(
            database: cleanupDatabase.configuration,
            identity: client(identityPort, "identity"),
            guestQuota: client(guestQuotaPort, "guest-quota"),
            userData: client(userDataProcess.port, "user-data")
        )
        configuration.database.limits.postgresPoolSize = 2
        configuration.recoveryGrace = .seconds(60)
        configuration.replicaID = replica
        configuration.now = clock.now
        return configuration
    }

    /// Runs `body` with a cleanup replica on this cluster's cleanup database: its server on a free port (the sweep
    /// loop does not run; tests sweep through the method).
    func withCleanup<T: Sendable>(
        replica: String = "replica-a",
        configure: (inout CleanupConfiguration) -> Void = { _ in },
        _ body: (CleanupReplica) async throws -> T
    ) async throws -> T {
        var configuration = cleanupConfiguration(replica: replica)
        configure(&configuration)
        let service = try await CleanupService.make(
            configuration: configuration,
            server: testServerConfiguration(service: "cleanup"),
            logger: TestLogging.logger("foyer.test.cleanup")
        )
        do {
            let result = try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { try await service.server.run() }
                defer { group.cancelAll() }
                let port = try await service.server.boundAddress().port!
                return try await withTestClient(port: port, service: "cleanup", adjust: quickClient) { client in
                    try await body(CleanupReplica(service: service, client: client))
                }
            }
            try await service.close()
            return result
        } catch {
            try? await service.close()
            throw error
        }
    }
}

// MARK: - Accounts in the cluster

/// What a test needs of a guest it made.
struct TestGuest: Sendable {
    let uid: String
    let refreshToken: String
}

extension CleanupCluster {
    /// A guest as the gateway signs one in (identity; its quota account opens at its first consume), holding
    /// `documents` documents in `notes` (keys `n0`, `n1`, ...) that it paid for on its `documents` counter.
    func newGuest(documents: Int = 0) async throws -> TestGuest {
        let session = try await identity.call(
            IdentityMethods.createGuest,
            CreateGuestRequest(idempotencyKey: Base64URL.encode(SecureRandom.bytes(count: 16)))
        )
        try await write(session.uid, documents: (0..<documents).map { (key: "n\($0)", text: "guest note \($0)") })
        return TestGuest(uid: session.uid, refreshToken: session.refreshToken)
    }

    /// Writes documents into `notes` and counts them on the `documents` counter, as a quota-gated write does.
    func write(_ uid: String, documents: [(key: String, text: String)]) async throws {
        for document in documents {
            _ = try await userData.call(
                UserDataMethods.put,
                PutDocumentRequest(
                    uid: uid,
                    collection: "notes",
                    key: document.key,
                    value: ByteBuffer(string: document.text)
                )
            )
        }
        guard !documents.isEmpty else { return }
        _ = try await guestQuota.call(
            GuestQuotaMethods.consume,
            ConsumeRequest(
                uid: uid,
                charges: [
                    QuotaCharge(
                        counter: "documents",
                        amount: Int64(documents.count),
                        idempotencyKey: Base64URL.encode(SecureRandom.bytes(count: 12))
                    )
                ]
            )
        )
    }

    /// A permanent account: a guest that linked `email` and a password, moved to the member plan.
    func newMember(email: String, documents: [(key: String, text: String)] = []) async throws -> String {
        let guest = try await newGuest()
        let linked = try await identity.call(
            IdentityMethods.linkPassword,
            LinkPasswordRequest(uid: guest.uid, email: email, password: testPassword)
        )
        _ = try #require(linked.session, "the email is another account's")
        _ = try await guestQuota.call(GuestQuotaMethods.changePlan, ChangePlanRequest(uid: guest.uid, plan: "member"))
        try await write(guest.uid, documents: documents)
        return guest.uid
    }

    /// Begins `guest`'s merge into the account holding `email` as the gateway's link-or-merge does: identity's
    /// `link` with the account's password and `merge`, which leaves the guest merging (and signed out).
    @discardableResult
    func beginMerge(
        _ guest: TestGuest,
        intoAccountWith email: String,
        operationID: String,
        policy: MergePolicy = .keepBoth
    ) async throws -> AccountState {
        let session = try await identity.call(
            IdentityMethods.refreshSession,
            RefreshSessionRequest(refreshToken: guest.refreshToken)
        )
        let step = try await identity.call(
            IdentityMethods.link,
            LinkAccountRequest(
                operation: CallerOperation(
                    accessToken: session.accessToken,
                    requirement: .any,
                    operationID: operationID,
                    answerID: Array(SHA256.hash(Array(operationID.utf8)))
                ),
                proof: .credential(.password(email: email, password: testPassword)),
                onConflict: .merge,
                mergePolicy: policy,
                source: ""
            )
        )
        guard case .begun(_, let state) = step else {
            throw RPCError(.internal, "link answered \(step) instead of beginning the merge")
        }
        return state
    }

    /// Moves the shared clock.
    func advance(days: Double = 0, seconds: Double = 0) {
        clock.advance(by: days * 86_400 + seconds)
    }

    /// The account's state in identity, or nil if identity no longer knows it.
    func state(of uid: String) async throws -> AccountStateKind? {
        do {
            return try await identity.call(IdentityMethods.getUser, IdentityUserRequest(uid: uid)).state.kind
        } catch let error as RPCError where error.status == IdentityStatus.userNotFound {
            return nil
        }
    }

    func documentCount(_ uid: String) async throws -> UInt64 {
        try await userData.call(UserDataMethods.count, CountDocumentsRequest(uid: uid)).documents
    }

    /// The `documents` counter of the account's quota (0 when guest-quota has no account for the uid).
    func documentsUsed(_ uid: String) async throws -> UInt64? {
        let usage = try await guestQuota.call(GuestQuotaMethods.usage, QuotaUsageRequest(uid: uid))
        return usage.counters.first { $0.counter == "documents" }?.used
    }

    /// The keys of the account's `notes`.
    func noteKeys(_ uid: String) async throws -> [String] {
        try await userData.call(UserDataMethods.list, ListDocumentsRequest(uid: uid, collection: "notes"))
            .documents.map(\.key).sorted()
    }

    /// Rows of `uid` that its deletion or merge must remove at once (documents, counters, consume keys, the user,
    /// its sessions, emails, guest keys and tickets), by table (empty when none). The records kept for a retention
    /// (merge records, tombstones) are left to that check: UpstreamPruneTests searches every table of every
    /// database, read from the schema, once the retentions have passed.
    func traces(of uid: String) async throws -> [String: Int] {
        let places: [(FoyerDatabase, String, String)] = [
            (identityDatabase, "identity_users", "uid"), (identityDatabase, "identity_sessions", "uid"),
            (identityDatabase, "identity_emails", "uid"), (identityDatabase, "identity_guest_keys", "uid"),
            (identityDatabase, "identity_conflict_tickets", "holder_uid"),
            (userDataDatabase, "ud_documents", "uid"),
            (guestQuotaDatabase, "gq_accounts", "uid"), (guestQuotaDatabase, "gq_usage", "uid"),
            (guestQuotaDatabase, "gq_consumptions", "uid"),
        ]
        var found: [String: Int] = [:]
        for (database, table, column) in places {
            let count = try await database.withConnection { sql in
                try await sql.raw("SELECT COUNT(*) AS n FROM \(ident: table) WHERE \(ident: column) = \(bind: uid)")
                    .first()!.decode(column: "n", as: Int.self)
            }
            if count > 0 { found[table] = count }
        }
        return found
    }

    /// Whether the guest's refresh token still gets a session.
    func canRefresh(_ guest: TestGuest) async -> Bool {
        do {
            _ = try await identity.call(
                IdentityMethods.refreshSession,
                RefreshSessionRequest(refreshToken: guest.refreshToken)
            )
            return true
        } catch {
            return false
        }
    }

    /// Every text cell of cleanup's tables, for checks that no uid is stored.
    func cleanupTableText() async throws -> String {
        try await cleanupDatabase.withConnection { sql in
            var text = ""
            for row in try await sql.raw("SELECT operation_key, subject FROM cleanup_deletions").all() {
                text += try row.decode(column: "operation_key", as: String.self) + " "
                text += try row.decode(column: "subject", as: String.self) + " "
            }
            for row in try await sql.raw("SELECT subject, replica FROM cleanup_claims").all() {
                text += try row.decode(column: "subject", as: String.self) + " "
                text += try row.decode(column: "replica", as: String.self) + " "
            }
            return text
        }
    }

    /// Rows in cleanup's claims table.
    func claimCount() async throws -> Int {
        try await cleanupDatabase.withConnection { sql in
            try await sql.raw("SELECT COUNT(*) AS n FROM cleanup_claims").first()!.decode(column: "n", as: Int.self)
        }
    }
}

let testPassword = "correct horse battery staple 42"

/// The status a call failed with, or nil if it succeeded.
func failureStatus(_ body: () async throws -> some Any) async -> RPCStatus? {
    do {
        _ = try await body()
        return nil
    } catch let error as RPCError {
        return error.status
    } catch {
        Issue.record("not an RPCError: \(error)")
        return nil
    }
}
