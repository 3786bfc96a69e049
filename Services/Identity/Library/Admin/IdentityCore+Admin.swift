import Foundation
import FoyerAPI
import FoyerCrypto
import FoyerStorage
import SQLKit

/// The administration methods behind the gateway's admin API: finding and listing users, the counts, admin keys and
/// the audit log. Identity serves them to cluster-authenticated callers only, as every method.
extension IdentityCore {
    /// `findUser`: by uid, or by email normalised as sign-in does (the email credential first, then the oldest
    /// provider identity with that email), with the user's sessions neither revoked nor past their absolute expiry.
    /// No such user is `user-not-found`, as for `getUser`.
    func findUser(_ request: FindUserRequest) async throws -> AdminUserInfo {
        let uid: String
        switch request.by {
        case .uid:
            uid = request.value
        case .email:
            guard let email = EmailAddress(request.value) else { throw IdentityError.invalidEmail() }
            guard let found = try await database.withConnection({ sql in try await Self.uid(sql, email: email) })
            else { throw IdentityError.userNotFound() }
            uid = found
        }
        let user = try await getUser(IdentityUserRequest(uid: uid))
        let now = self.now
        let (live, grants) = try await database.withConnection { sql in
            let live =
                try await sql.raw(
                    """
                    SELECT COUNT(*) AS n FROM identity_sessions
                    WHERE uid = \(bind: uid) AND revoked_at IS NULL AND absolute_expires_at > \(SQLTimestamp(now))
                    """
                ).first()?.decode(column: "n", as: Int64.self) ?? 0
            return (live, try await UserRecords.loadGrants(sql, uid: uid))
        }
        return AdminUserInfo(user: user, liveSessions: UInt64(live), roles: grants?.roles ?? [])
    }

    private static func uid(_ sql: any SQLDatabase, email: EmailAddress) async throws -> String? {
        if let record = try await EmailRecords.load(sql, email: email) { return record.uid }
        return try await sql.raw(
            """
            SELECT uid FROM identity_provider_links WHERE lower(email) = \(bind: email.value)
            ORDER BY created_at, uid LIMIT 1
            """
        ).first()?.decode(column: "uid", as: String.self)
    }

    /// `listUsers`.
    func listUsers(_ request: ListUsersRequest) async throws -> UserSummaries {
        try await database.withConnection { sql in try await UserListing.page(sql, request) }
    }

    /// `userCounts`.
    func userCounts(_ request: UserCountsRequest) async throws -> UserCounts {
        let since = Date(wireMilliseconds: request.sinceMilliseconds)
        return try await database.withConnection { sql in try await UserListing.counts(sql, since: since) }
    }

    // MARK: Admin keys

    /// `createAdminKey`: a key from the CSPRNG, stored as its SHA-256; refused once the table holds
    /// `IdentityLimits.adminKeysCountMax` keys (revoked keys count until maintenance removes them).
    func createAdminKey(_ request: CreateAdminKeyRequest) async throws -> AdminKeyCreated {
        guard CreateAdminKeyRequest.isAcceptableName(request.name) else {
            throw IdentityError.invalidArgument("an admin key's name is 1-64 characters of A-Z a-z 0-9 . _ @ -")
        }
        let key = AdminKeyText.generate()
        let record = AdminKeyRecord(
            keyID: key.keyID,
            keyHash: key.hash,
            name: request.name,
            createdAt: now.atWirePrecision,
            createdBy: request.createdBy
        )
        try await database.transaction { sql in
            try await AdminKeyRecords.lockForInsert(sql)
            guard try await AdminKeyRecords.count(sql) < IdentityLimits.adminKeysCountMax else {
                throw IdentityError.tooManyAdminKeys()
            }
            try await AdminKeyRecords.insert(sql, record)
        }
        logger.notice(
            "admin key created",
            metadata: ["admin.key.id": "\(key.keyID)", "admin.key.createdBy": "\(request.createdBy)"]
        )
        return AdminKeyCreated(info: record.info, key: key.text)
    }

    /// `listAdminKeys`.
    func listAdminKeys() async throws -> AdminKeys {
        let records = try await database.withConnection { sql in
            try await AdminKeyRecords.list(sql, limit: IdentityLimits.adminKeysCountMax)
        }
        return AdminKeys(keys: records.map(\.info))
    }

    /// `revokeAdminKey`: the first revocation's time stays.
    func revokeAdminKey(_ request: AdminKeyRequest) async throws -> AdminKeyInfo {
        let now = self.now
        let record = try await database.transaction { sql in
            try await AdminKeyRecords.revoke(sql, keyID: request.keyID, now: now)
            return try await AdminKeyRecords.load(sql, keyID: request.keyID)
        }
        guard let record else { throw IdentityError.notFound("no such admin key") }
        logger.notice("admin key revoked", metadata: ["admin.key.id": "\(record.keyID)"])
        return record.info
    }

    /// `verifyAdminKey`: the key's form, then its hash against the stored one in constant time (against a dummy
    /// when the key id is unknown), then that it is not revoked; one refusal for every failure. Records the use at
    /// most once a minute per key.
    func verifyAdminKey(_ request: VerifyAdminKeyRequest) async throws -> AdminKeyInfo {
        guard let key = AdminKeyText(parsing: request.key) else { throw IdentityError.adminKeyRefused() }
        let now = self.now
        let stored = try await database.withConnection { sql in try await AdminKeyRecords.load(sql, keyID: key.keyID) }
        let matches = ConstantTime.equals(key.hash, stored?.keyHash ?? Self.dummyAdminKeyHash)
        guard matches, var record = stored, record.revokedAt == nil else { throw IdentityError.adminKeyRefused() }
        let due = record.lastUsedAt.map { $0 <= now.subtracting(AdminKeyRecords.lastUsedInterval) } ?? true
        if due {
            let written = try await database.transaction { sql in
                try await AdminKeyRecords.touchLastUsed(sql, keyID: record.keyID, now: now)
            }
            if written { record.lastUsedAt = now.atWirePrecision }
        }
        return record.info
    }

    /// Compared with when a key id is unknown, so that the answer takes as long as for a known one.
    private static let dummyAdminKeyHash = SHA256.hash(Array("foyer admin key: none".utf8))

    // MARK: The audit log

    /// `beginAdminAction`: the entry, with the key's name as it is now ("cluster-secret" for the cluster secret).
    func beginAdminAction(_ request: AdminActionStart) async throws -> AdminActionID {
        let now = self.now
        let id = try await database.transaction { sql in
            let keyName: String
            if request.keyID == CreateAdminKeyRequest.createdByClusterSecret {
                keyName = CreateAdminKeyRequest.createdByClusterSecret
            } else {
                guard let key = try await AdminKeyRecords.load(sql, keyID: request.keyID) else {
                    throw IdentityError.notFound("no such admin key")
                }
                keyName = key.name
            }
            return try await AdminActionRecords.insert(sql, start: request, keyName: keyName, now: now)
        }
        return AdminActionID(id: id)
    }

    /// `endAdminAction`: the first outcome recorded stays.
    func endAdminAction(_ request: AdminActionEnd) async throws {
        let now = self.now
        let found = try await database.transaction { sql in
            try await AdminActionRecords.end(sql, id: request.id, outcome: request.outcome, now: now)
        }
        guard found else { throw IdentityError.notFound("no such audit entry") }
    }

    /// `listAdminActions`: newest first; `next` is set when older entries remain.
    func listAdminActions(_ request: ListAdminActionsRequest) async throws -> AdminActions {
        let limit = Int(request.limit)
        let actions = try await database.withConnection { sql in
            try await AdminActionRecords.list(sql, before: request.before, limit: limit + 1)
        }
        guard actions.count > limit else { return AdminActions(actions: actions, next: nil) }
        let page = Array(actions.prefix(limit))
        return AdminActions(actions: page, next: page.last?.id)
    }
}
