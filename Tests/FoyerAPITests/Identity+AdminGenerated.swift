import FoyerAPI
import FoyerWire

extension FindUserRequest: Generated {
    static func generate(_ values: inout WireValues) -> FindUserRequest {
        FindUserRequest(by: values.anyCase(of: UserLookup.self), value: values.email())
    }
}

extension AdminUserInfo: Generated {
    static func generate(_ values: inout WireValues) -> AdminUserInfo {
        AdminUserInfo(
            user: values.message(),
            liveSessions: values.integer(),
            roles: values.list(maxCount: IdentityLimits.rolesCountMax) { $0.grantName() }
        )
    }
}

extension SetUserPlanRequest: Generated {
    static func generate(_ values: inout WireValues) -> SetUserPlanRequest {
        SetUserPlanRequest(uid: values.uid(), plan: values.grantName())
    }
}

extension SetUserRolesRequest: Generated {
    static func generate(_ values: inout WireValues) -> SetUserRolesRequest {
        SetUserRolesRequest(
            uid: values.uid(),
            roles: values.list(maxCount: IdentityLimits.rolesCountMax) { $0.grantName() }
        )
    }
}

extension WireValues {
    /// A plan or role name at the decoder's cap (the decoder checks only the length; identity checks the alphabet).
    mutating func grantName() -> String { text(.collection, maxBytes: IdentityLimits.grantNameByteCountMax) }
}

extension UserCursor: Generated {
    static func generate(_ values: inout WireValues) -> UserCursor {
        UserCursor(atMilliseconds: values.millisecondsSinceEpoch(), uid: values.uid())
    }
}

extension ListUsersRequest: Generated {
    static func generate(_ values: inout WireValues) -> ListUsersRequest {
        ListUsersRequest(
            kind: values.anyCase(of: UserKind.self),
            order: values.anyCase(of: UserOrder.self),
            newestFirst: values.bool(),
            limit: values.integer(in: 1...UInt32(IdentityLimits.listCountMax)),
            after: values.optional { $0.message() }
        )
    }
}

extension UserSummary: Generated {
    static func generate(_ values: inout WireValues) -> UserSummary {
        UserSummary(
            uid: values.uid(),
            isAnonymous: values.bool(),
            state: values.message(),
            createdAtMilliseconds: values.millisecondsSinceEpoch(),
            lastActivityAtMilliseconds: values.millisecondsSinceEpoch()
        )
    }
}

extension UserSummaries: Generated {
    static func generate(_ values: inout WireValues) -> UserSummaries {
        UserSummaries(
            users: values.list(maxCount: IdentityLimits.listCountMax) { $0.message() },
            next: values.optional { $0.message() }
        )
    }
}

extension UserCountsRequest: Generated {
    static func generate(_ values: inout WireValues) -> UserCountsRequest {
        UserCountsRequest(sinceMilliseconds: values.millisecondsSinceEpoch())
    }
}

extension UserCounts: Generated {
    static func generate(_ values: inout WireValues) -> UserCounts {
        UserCounts(
            guests: values.integer(),
            members: values.integer(),
            createdSince: values.integer(),
            pendingDeletions: values.integer(),
            pendingMerges: values.integer()
        )
    }
}

/// Admin keys' fields at their limits.
extension WireValues {
    mutating func adminKeyID() -> String { text(maxBytes: IdentityLimits.adminKeyIDByteCountMax) }
    mutating func adminKeyName() -> String {
        text(.collection, minBytes: 1, maxBytes: IdentityLimits.adminKeyNameByteCountMax)
    }
}

extension CreateAdminKeyRequest: Generated {
    static func generate(_ values: inout WireValues) -> CreateAdminKeyRequest {
        CreateAdminKeyRequest(name: values.adminKeyName(), createdBy: values.adminKeyID())
    }
}

extension AdminKeyInfo: Generated {
    static func generate(_ values: inout WireValues) -> AdminKeyInfo {
        AdminKeyInfo(
            keyID: values.adminKeyID(),
            name: values.text(maxBytes: IdentityLimits.adminKeyNameByteCountMax),
            createdAtMilliseconds: values.millisecondsSinceEpoch(),
            createdBy: values.adminKeyID(),
            revokedAtMilliseconds: values.optional { $0.millisecondsSinceEpoch() },
            lastUsedAtMilliseconds: values.optional { $0.millisecondsSinceEpoch() }
        )
    }
}

extension AdminKeyCreated: Generated {
    static func generate(_ values: inout WireValues) -> AdminKeyCreated {
        AdminKeyCreated(info: values.message(), key: values.text(maxBytes: IdentityLimits.adminKeyByteCountMax))
    }
}

extension AdminKeys: Generated {
    static func generate(_ values: inout WireValues) -> AdminKeys {
        AdminKeys(keys: values.list(maxCount: IdentityLimits.adminKeysCountMax) { $0.message() })
    }
}

extension AdminKeyRequest: Generated {
    static func generate(_ values: inout WireValues) -> AdminKeyRequest { AdminKeyRequest(keyID: values.adminKeyID()) }
}

extension VerifyAdminKeyRequest: Generated {
    static func generate(_ values: inout WireValues) -> VerifyAdminKeyRequest {
        VerifyAdminKeyRequest(key: values.text(maxBytes: IdentityLimits.adminKeyByteCountMax))
    }
}

extension AdminActionStart: Generated {
    static func generate(_ values: inout WireValues) -> AdminActionStart {
        AdminActionStart(
            keyID: values.adminKeyID(),
            action: values.text(minBytes: 1, maxBytes: IdentityLimits.adminActionByteCountMax),
            target: values.optional { $0.text(maxBytes: IdentityLimits.adminTargetByteCountMax) }
        )
    }
}

extension AdminActionID: Generated {
    static func generate(_ values: inout WireValues) -> AdminActionID { AdminActionID(id: values.integer()) }
}

extension AdminActionEnd: Generated {
    static func generate(_ values: inout WireValues) -> AdminActionEnd {
        AdminActionEnd(
            id: values.integer(),
            outcome: values.text(minBytes: 1, maxBytes: IdentityLimits.adminOutcomeByteCountMax)
        )
    }
}

extension ListAdminActionsRequest: Generated {
    static func generate(_ values: inout WireValues) -> ListAdminActionsRequest {
        ListAdminActionsRequest(
            before: values.optional { $0.integer() },
            limit: values.integer(in: 1...UInt32(IdentityLimits.listCountMax))
        )
    }
}

extension AdminActionRecord: Generated {
    static func generate(_ values: inout WireValues) -> AdminActionRecord {
        AdminActionRecord(
            id: values.integer(),
            atMilliseconds: values.millisecondsSinceEpoch(),
            keyID: values.adminKeyID(),
            keyName: values.text(maxBytes: IdentityLimits.adminKeyNameByteCountMax),
            action: values.text(maxBytes: IdentityLimits.adminActionByteCountMax),
            target: values.optional { $0.text(maxBytes: IdentityLimits.adminTargetByteCountMax) },
            outcome: values.optional { $0.text(maxBytes: IdentityLimits.adminOutcomeByteCountMax) }
        )
    }
}

extension AdminActions: Generated {
    static func generate(_ values: inout WireValues) -> AdminActions {
        AdminActions(
            actions: values.list(maxCount: IdentityLimits.listCountMax) { $0.message() },
            next: values.optional { $0.integer() }
        )
    }
}

extension RememberOperationAnswerRequest: Generated {
    static func generate(_ values: inout WireValues) -> RememberOperationAnswerRequest {
        RememberOperationAnswerRequest(
            id: values.bytes(minBytes: 32, maxBytes: 32),
            check: values.bytes(minBytes: 32, maxBytes: 32),
            sealed: values.bytes(minBytes: 1, maxBytes: OperationAnswerLimits.sealedByteCountMax),
            lifetimeSeconds: values.integer(in: 1...OperationAnswerLimits.lifetimeSecondsMax)
        )
    }
}
