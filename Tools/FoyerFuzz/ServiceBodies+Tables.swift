import FoyerAPI
import FoyerWire

/// The typed method tables of the five services: every `RPCMethod` of `<Service>Methods.all`, so its request and
/// response types can be decoded (`checkCoversTable` stops the run when a table and its typed list differ).
extension ServiceBodies {
    static let tables: [ServiceBodies] = [identity, guestQuota, userData, cleanup, gateway]

    static let identity = ServiceBodies(
        service: "identity",
        table: IdentityMethods.all,
        methods: [
            method(IdentityMethods.createGuest, of: "identity"),
            method(IdentityMethods.refreshSession, of: "identity"),
            method(IdentityMethods.verifyAccessToken, of: "identity"),
            method(IdentityMethods.revokeSession, of: "identity"),
            method(IdentityMethods.revokeAllSessions, of: "identity"),
            method(IdentityMethods.getJWKS, of: "identity"),
            method(IdentityMethods.rotateSigningKey, of: "identity"),
            method(IdentityMethods.getUser, of: "identity"),
            method(IdentityMethods.recordActivity, of: "identity"),
            method(IdentityMethods.linkPassword, of: "identity"),
            method(IdentityMethods.signInWithPassword, of: "identity"),
            method(IdentityMethods.startEmailLink, of: "identity"),
            method(IdentityMethods.completeEmailLink, of: "identity"),
            method(IdentityMethods.listOutbox, of: "identity"),
            method(IdentityMethods.completeEmailCode, of: "identity"),
            method(IdentityMethods.signInWithProvider, of: "identity"),
            method(IdentityMethods.linkProvider, of: "identity"),
            method(IdentityMethods.link, of: "identity"),
            method(IdentityMethods.deleteAccount, of: "identity"),
            method(IdentityMethods.finishMerge, of: "identity"),
            method(IdentityMethods.beginDelete, of: "identity"),
            method(IdentityMethods.finishDelete, of: "identity"),
            method(IdentityMethods.beginDeleteBatch, of: "identity"),
            method(IdentityMethods.finishDeleteBatch, of: "identity"),
            method(IdentityMethods.listStuckAccounts, of: "identity"),
            method(IdentityMethods.listExpiredGuests, of: "identity"),
            method(IdentityMethods.findUser, of: "identity"),
            method(IdentityMethods.listUsers, of: "identity"),
            method(IdentityMethods.userCounts, of: "identity"),
            method(IdentityMethods.createAdminKey, of: "identity"),
            method(IdentityMethods.listAdminKeys, of: "identity"),
            method(IdentityMethods.revokeAdminKey, of: "identity"),
            method(IdentityMethods.verifyAdminKey, of: "identity"),
            method(IdentityMethods.beginAdminAction, of: "identity"),
            method(IdentityMethods.endAdminAction, of: "identity"),
            method(IdentityMethods.listAdminActions, of: "identity"),
            method(IdentityMethods.setUserPlan, of: "identity"),
            method(IdentityMethods.setUserRoles, of: "identity"),
            method(IdentityMethods.rememberOperationAnswer, of: "identity"),
            method(IdentityMethods.startPasswordReset, of: "identity"),
            method(IdentityMethods.completePasswordReset, of: "identity"),
            method(IdentityMethods.changePassword, of: "identity"),
            method(IdentityMethods.unlinkCredential, of: "identity"),
            method(IdentityMethods.startEmailChange, of: "identity"),
            method(IdentityMethods.completeEmailChange, of: "identity"),
            method(IdentityMethods.listEvents, of: "identity"),
            method(IdentityMethods.getEvent, of: "identity"),
            method(IdentityMethods.replayEvent, of: "identity"),
        ],
        details: [check(ConflictDetails.self, "identity")]
    )
    static let guestQuota = ServiceBodies(
        service: "guest-quota",
        table: GuestQuotaMethods.all,
        methods: [
            method(GuestQuotaMethods.admitSignup, of: "guest-quota"),
            method(GuestQuotaMethods.openAccount, of: "guest-quota"),
            method(GuestQuotaMethods.changePlan, of: "guest-quota"),
            method(GuestQuotaMethods.consume, of: "guest-quota"),
            method(GuestQuotaMethods.refund, of: "guest-quota"),
            method(GuestQuotaMethods.release, of: "guest-quota"),
            method(GuestQuotaMethods.usage, of: "guest-quota"),
            method(GuestQuotaMethods.feature, of: "guest-quota"),
            method(GuestQuotaMethods.merge, of: "guest-quota"),
            method(GuestQuotaMethods.deleteAll, of: "guest-quota"),
            method(GuestQuotaMethods.deleteAllBatch, of: "guest-quota"),
            method(GuestQuotaMethods.stats, of: "guest-quota"),
            method(GuestQuotaMethods.prune, of: "guest-quota"),
        ],
        details: [check(QuotaExceededDetails.self, "guest-quota")]
    )
    static let userData = ServiceBodies(
        service: "user-data",
        table: UserDataMethods.all,
        methods: [
            method(UserDataMethods.put, of: "user-data"),
            method(UserDataMethods.get, of: "user-data"),
            method(UserDataMethods.list, of: "user-data"),
            method(UserDataMethods.delete, of: "user-data"),
            method(UserDataMethods.count, of: "user-data"),
            method(UserDataMethods.merge, of: "user-data"),
            method(UserDataMethods.deleteAll, of: "user-data"),
            method(UserDataMethods.deleteAllBatch, of: "user-data"),
            method(UserDataMethods.export, of: "user-data"),
            method(UserDataMethods.putOnce, of: "user-data"),
            method(UserDataMethods.lookupPut, of: "user-data"),
            method(UserDataMethods.prune, of: "user-data"),
        ],
        details: [check(ValueTooLargeDetails.self, "user-data"), check(VersionMismatchDetails.self, "user-data")]
    )
    static let cleanup = ServiceBodies(
        service: "cleanup",
        table: CleanupMethods.all,
        methods: [
            method(CleanupMethods.status, of: "cleanup"),
            method(CleanupMethods.sweep, of: "cleanup"),
            method(CleanupMethods.recordDeletion, of: "cleanup"),
            method(CleanupMethods.listDeletions, of: "cleanup"),
        ],
        details: []
    )
    static let gateway = ServiceBodies(
        service: "gateway",
        table: GatewayMethods.all,
        methods: [
            method(GatewayMethods.guestSignIn, of: "gateway"),
            method(GatewayMethods.signIn, of: "gateway"),
            method(GatewayMethods.refresh, of: "gateway"),
            method(GatewayMethods.startEmailLink, of: "gateway"),
            method(GatewayMethods.signOut, of: "gateway"),
            method(GatewayMethods.me, of: "gateway"),
            method(GatewayMethods.quota, of: "gateway"),
            method(GatewayMethods.link, of: "gateway"),
            method(GatewayMethods.resolveConflict, of: "gateway"),
            method(GatewayMethods.deleteAccount, of: "gateway"),
            method(GatewayMethods.checkFeature, of: "gateway"),
            method(GatewayMethods.consumeCounter, of: "gateway"),
            method(GatewayMethods.releaseCounter, of: "gateway"),
            method(GatewayMethods.putDocument, of: "gateway"),
            method(GatewayMethods.getDocument, of: "gateway"),
            method(GatewayMethods.listDocuments, of: "gateway"),
            method(GatewayMethods.deleteDocument, of: "gateway"),
            method(GatewayMethods.exportDocuments, of: "gateway"),
            method(GatewayMethods.importDocuments, of: "gateway"),
            method(GatewayMethods.jwks, of: "gateway"),
            method(GatewayMethods.startPasswordReset, of: "gateway"),
            method(GatewayMethods.completePasswordReset, of: "gateway"),
            method(GatewayMethods.changePassword, of: "gateway"),
            method(GatewayMethods.signOutEverywhere, of: "gateway"),
            method(GatewayMethods.unlinkCredential, of: "gateway"),
            method(GatewayMethods.startEmailChange, of: "gateway"),
            method(GatewayMethods.completeEmailChange, of: "gateway"),
        ],
        details: [check(ConflictDetails.self, "gateway"), check(QuotaExceededDetails.self, "gateway")]
    )
}
