import Foundation
import FoyerAPI
import SQLKit

/// The plan and roles identity writes into a user's access tokens. They take effect at the user's next access
/// token (a sign-in or a refresh); tokens already issued keep what they say until they expire.
extension IdentityCore {
    /// `setUserPlan`: the plan guest-quota now applies to the user (the gateway calls guest-quota first). A plan
    /// other than the one its tokens named writes `plan.changed` in the same transaction.
    func setUserPlan(_ request: SetUserPlanRequest) async throws {
        guard UserGrants.isValidName(request.plan, allowingColon: false) else {
            throw IdentityError.invalidArgument("a plan is 1-64 bytes of a-z 0-9 _ . -")
        }
        let now = self.now
        let found = try await database.transaction { sql -> Bool in
            guard let user = try await UserRecords.load(sql, uid: request.uid, lock: true) else { return false }
            try await self.recordPlanChange(sql, user: user, to: request.plan, now: now)
            return try await UserRecords.setPlan(sql, uid: request.uid, plan: request.plan)
        }
        guard found else { throw IdentityError.userNotFound() }
        logger.info("plan set", metadata: ["user.uid": "\(request.uid)", "plan": "\(request.plan)"])
    }

    /// `setUserRoles`: replaces the user's roles (sorted, duplicates dropped; an empty list removes them all).
    func setUserRoles(_ request: SetUserRolesRequest) async throws {
        for role in request.roles where !UserGrants.isValidName(role, allowingColon: true) {
            throw IdentityError.invalidArgument("a role is 1-64 bytes of a-z 0-9 _ . - :")
        }
        let roles = Array(Set(request.roles)).sorted()
        let found = try await database.transaction { sql in
            try await UserRecords.setRoles(sql, uid: request.uid, roles: roles)
        }
        guard found else { throw IdentityError.userNotFound() }
        logger.info("roles set", metadata: ["user.uid": "\(request.uid)", "roles": "\(roles.joined(separator: ","))"])
    }
}
