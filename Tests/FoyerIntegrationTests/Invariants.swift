import FoyerCrypto
import FoyerStorage
import SQLKit
import Testing

/// The invariants of docs/INVARIANTS.md, by their number there.
enum Invariant: String, Sendable, CaseIterable {
    case documentHasUser = "I1 no document without a user"
    case countersCoverDocuments = "I2 counters cover the documents"
    case sagasEnd = "I3 every merge and deletion ends"
    case nothingOfDeleted = "I4 nothing of a deleted uid"
    case oneState = "I5 one state per uid"
    case recordedOnce = "I6 each deletion recorded once"
}

/// One breach of an invariant: which, the uid (or cleanup's pseudonymous subject) that breaks it, and how.
struct InvariantViolation: Sendable, Hashable, CustomStringConvertible {
    let invariant: Invariant
    let uid: String
    let detail: String

    var description: String { "\(invariant.rawValue): \(uid): \(detail)" }
}

/// What the check may assume of the stack beyond what always holds.
struct InvariantScope: Sendable {
    /// Uids the test deleted or merged away (whose retentions it has passed): nothing of them may be left (I4) and
    /// cleanup holds a record of each (I6).
    var deleted: [String] = []
    /// Every put and delete finished and no merge dropped a document: guest-quota's counters equal user-data's
    /// documents (I2), not only cover them.
    var exactCounters = false
}

/// `#expect`s every invariant of docs/INVARIANTS.md on the stack's databases, each breach reported with its uid. Call
/// it at rest: no client call or sweep running, and cleanup's recovery run since the last crash.
func expectInvariants(
    _ stack: RunningStack,
    _ scope: InvariantScope = InvariantScope(),
    sourceLocation: SourceLocation = #_sourceLocation
) async throws {
    let violations = try await stack.databases.invariantViolations(scope)
    for violation in violations {
        Issue.record("invariant broken: \(violation)", sourceLocation: sourceLocation)
    }
}

extension StackDatabases {
    /// The most rows the check reads from one table; a stack of a test holds far fewer.
    static let invariantRowsMax = 100_000

    /// Every breach of the invariants of docs/INVARIANTS.md in the stack's databases (empty when they hold).
    func invariantViolations(_ scope: InvariantScope = InvariantScope()) async throws -> [InvariantViolation] {
        let users = try await identityUsers()
        var violations: [InvariantViolation] = []
        let stored = try await storedDocuments()
        for uid in stored.keys.sorted() where users[uid] == nil {
            violations.append(.init(invariant: .documentHasUser, uid: uid, detail: "documents but no identity user"))
        }
        violations += try await counterViolations(stored, exact: scope.exactCounters)
        for (uid, user) in users.sorted(by: { $0.key < $1.key }) where user.state != "active" {
            violations.append(.init(invariant: .sagasEnd, uid: uid, detail: "still \(user.state)"))
        }
        for subject in try await strings(cleanup, "SELECT subject AS v FROM cleanup_claims") {
            violations.append(.init(invariant: .sagasEnd, uid: subject, detail: "cleanup still holds a claim"))
        }
        violations += try await stateViolations(users)
        violations += try await deletedViolations(scope.deleted)
        violations += try await recordViolations(scope.deleted)
        return violations
    }

    // MARK: Reading

    private struct IdentityUser {
        var state: String
        var isAnonymous: Bool
        var mergeInto: String?
        var operationID: String?
    }

    private func identityUsers() async throws -> [String: IdentityUser] {
        try await identity.withConnection { sql in
            var users: [String: IdentityUser] = [:]
            let rows = try await sql.raw(
                """
                SELECT uid, state, is_anonymous, merge_into, operation_id FROM identity_users
                ORDER BY uid LIMIT \(bind: Self.invariantRowsMax)
                """
            ).all()
            for row in rows {
                users[try row.decode(column: "uid", as: String.self)] = IdentityUser(
                    state: try row.decode(column: "state", as: String.self),
                    isAnonymous: try row.decode(column: "is_anonymous", as: Bool.self),
                    mergeInto: try row.decode(column: "merge_into", as: String?.self),
                    operationID: try row.decode(column: "operation_id", as: String?.self)
                )
            }
            return users
        }
    }

    /// Per uid, user-data's documents and the bytes of their bodies.
    private func storedDocuments() async throws -> [String: (documents: Int, bytes: Int)] {
        try await userData.withConnection { sql in
            var stored: [String: (documents: Int, bytes: Int)] = [:]
            let rows = try await sql.raw(
                """
                SELECT uid, COUNT(*) AS documents, CAST(SUM(body_size) AS BIGINT) AS bytes FROM ud_documents
                GROUP BY uid ORDER BY uid LIMIT \(bind: Self.invariantRowsMax)
                """
            ).all()
            for row in rows {
                stored[try row.decode(column: "uid", as: String.self)] = (
                    try row.decode(column: "documents", as: Int.self), try row.decode(column: "bytes", as: Int.self)
                )
            }
            return stored
        }
    }

    /// The first column (`v`) of every row of `query`, as text.
    private func strings(_ database: FoyerDatabase, _ query: String, _ bind: String? = nil) async throws -> [String] {
        try await database.withConnection { sql in
            let statement: SQLQueryString =
                bind.map { "\(unsafeRaw: query)\(bind: $0)" }
                ?? "\(unsafeRaw: query) LIMIT \(bind: Self.invariantRowsMax)"
            return try await sql.raw(statement).all().map { try $0.decode(column: "v", as: String.self) }
        }
    }

    // MARK: The checks

    /// I2: guest-quota's `documents` and `bytes` counters of each uid cover (or, `exact`, equal) user-data's.
    private func counterViolations(
        _ stored: [String: (documents: Int, bytes: Int)],
        exact: Bool
    ) async throws -> [InvariantViolation] {
        let counted = try await guestQuota.withConnection { sql in
            var counted: [String: [String: Int]] = [:]
            let rows = try await sql.raw(
                """
                SELECT uid, counter, used FROM gq_usage WHERE counter IN ('documents', 'bytes')
                ORDER BY uid LIMIT \(bind: Self.invariantRowsMax)
                """
            ).all()
            for row in rows {
                counted[try row.decode(column: "uid", as: String.self), default: [:]][
                    try row.decode(column: "counter", as: String.self)
                ] = try row.decode(column: "used", as: Int.self)
            }
            return counted
        }
        var violations: [InvariantViolation] = []
        for uid in Set(stored.keys).union(exact ? Set(counted.keys) : []).sorted() {
            let real = stored[uid] ?? (0, 0)
            for (counter, value) in [("documents", real.documents), ("bytes", real.bytes)] {
                let used = counted[uid]?[counter] ?? 0
                if used < value || (exact && used != value) {
                    violations.append(
                        .init(
                            invariant: .countersCoverDocuments,
                            uid: uid,
                            detail: "guest-quota counts \(used) \(counter), user-data stores \(value)"
                        )
                    )
                }
            }
        }
        return violations
    }

    /// I5: identity's state columns agree with each other; a guest holds no credential; no source of a merge and
    /// no tombstoned uid is a live user.
    private func stateViolations(_ users: [String: IdentityUser]) async throws -> [InvariantViolation] {
        var violations: [InvariantViolation] = []
        func add(_ uid: String, _ detail: String) {
            violations.append(.init(invariant: .oneState, uid: uid, detail: detail))
        }
        for (uid, user) in users.sorted(by: { $0.key < $1.key }) {
            switch user.state {
            case "active" where user.mergeInto == nil && user.operationID == nil: break
            case "merging" where user.mergeInto != nil && user.operationID != nil && user.isAnonymous: break
            case "deleting" where user.mergeInto == nil && user.operationID != nil: break
            default:
                add(
                    uid,
                    "state \(user.state), merge_into \(user.mergeInto ?? "-"), operation \(user.operationID ?? "-"), "
                        + "anonymous \(user.isAnonymous)"
                )
            }
        }
        let credentialed =
            try await strings(identity, "SELECT uid AS v FROM identity_emails")
            + strings(identity, "SELECT uid AS v FROM identity_provider_links")
        for uid in Set(credentialed).sorted() where users[uid]?.isAnonymous == true {
            add(uid, "a guest with a credential (a member too)")
        }
        let mergedAway =
            try await strings(userData, "SELECT from_uid AS v FROM ud_merge_ops")
            + strings(guestQuota, "SELECT from_uid AS v FROM gq_merges")
        for uid in Set(mergedAway).sorted() where users[uid]?.state == "active" {
            add(uid, "merged away, yet an active user")
        }
        for uid in try await strings(userData, "SELECT uid AS v FROM ud_deleted_uids")
        where users[uid]?.state == "active" {
            add(uid, "deleted in user-data, yet an active user")
        }
        return violations
    }

    /// I4: no row keyed by a deleted uid in the services' own tables.
    private func deletedViolations(_ deleted: [String]) async throws -> [InvariantViolation] {
        var violations: [InvariantViolation] = []
        for uid in deleted {
            let tables = try await traces(of: uid)
            if !tables.isEmpty {
                violations.append(.init(invariant: .nothingOfDeleted, uid: uid, detail: "rows left: \(tables)"))
            }
        }
        return violations
    }

    /// I6: no subject has two records of a merge, nor two of a deletion; each of `deleted` has one at least.
    private func recordViolations(_ deleted: [String]) async throws -> [InvariantViolation] {
        var violations: [InvariantViolation] = []
        let repeated = try await strings(
            cleanup,
            """
            SELECT subject AS v FROM cleanup_deletions
            GROUP BY subject, CASE WHEN reason = 2 THEN 1 ELSE 0 END HAVING COUNT(*) > 1
            """
        )
        for subject in repeated {
            violations.append(.init(invariant: .recordedOnce, uid: subject, detail: "recorded more than once"))
        }
        guard !deleted.isEmpty else { return violations }
        let key = try await cleanup.withConnection { sql in
            try await sql.raw("SELECT material FROM cleanup_keys WHERE name = 'pseudonym'").first()?
                .decodeBytes(column: "material")
        }
        for uid in deleted {
            let subject = key.map { Self.subject(uid: uid, key: $0) } ?? ""
            let records = try await strings(
                cleanup,
                "SELECT subject AS v FROM cleanup_deletions WHERE subject = ",
                subject
            )
            if records.isEmpty {
                violations.append(.init(invariant: .recordedOnce, uid: uid, detail: "deleted without a record"))
            }
        }
        return violations
    }

    /// cleanup's pseudonymous id of `uid` (its Pseudonymizer): HMAC-SHA-256 under the deployment's key, hex.
    static func subject(uid: String, key: [UInt8]) -> String {
        HMACSHA256.authenticationCode(key: key, message: Array("foyer.cleanup.uid\u{0}\(uid)".utf8))
            .map { String($0, radix: 16).count == 1 ? "0" + String($0, radix: 16) : String($0, radix: 16) }
            .joined()
    }
}
