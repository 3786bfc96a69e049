public import FoyerWire

/// The gateway's client-facing methods (0x0501…0x05FF): what apps, app servers and `foyer` call.
///
/// Calls that act for a user carry the user's access token as their first field; the gateway verifies it
/// itself (against identity's published keys) and acts for its subject. Multi-service operations carry an
/// operation id chosen by the client: repeating the call with the same id finishes or returns the first
/// outcome, never doing the work twice. Statuses of the services pass through unchanged (identity `0x31nn`,
/// guest-quota `0x32nn`, user-data `0x33nn`); the gateway's own are in `GatewayStatus`.
public enum GatewayMethods {
    // MARK: Sessions

    /// A new guest: admitted by source address, then created, then given the guest plan.
    public static let guestSignIn = RPCMethod<GuestSignInRequest, SessionTokens>(
        id: 0x0501,
        name: "gateway.guestSignIn",
        idempotent: true
    )
    /// Signs in to an existing account with a credential (an ID token of an unknown identity creates a member).
    public static let signIn = RPCMethod<SignInRequest, SessionTokens>(
        id: 0x0502,
        name: "gateway.signIn",
        idempotent: false
    )
    /// Rotates a refresh token into a new session pair.
    public static let refresh = RPCMethod<RefreshSessionRequest, SessionTokens>(
        id: 0x0503,
        name: "gateway.refresh",
        idempotent: true
    )
    /// Sends a passwordless sign-in or link email (same answer whether the address is known or not).
    public static let startEmailLink = RPCMethod<EmailLinkStartRequest, Empty>(
        id: 0x0504,
        name: "gateway.startEmailLink",
        idempotent: false
    )
    /// Ends the session: a guest's sign-out deletes the guest with everything (it could never come back).
    public static let signOut = RPCMethod<OperationRequest, SignOutResponse>(
        id: 0x0505,
        name: "gateway.signOut",
        idempotent: true
    )

    // MARK: Accounts

    /// Who the caller is, how they can sign in, and their quota.
    public static let me = RPCMethod<AuthenticatedRequest, MeResponse>(
        id: 0x0510,
        name: "gateway.me",
        idempotent: true
    )
    /// The caller's plan, counters and features.
    public static let quota = RPCMethod<AuthenticatedRequest, QuotaUsageResponse>(
        id: 0x0511,
        name: "gateway.quota",
        idempotent: true
    )
    /// Whether the caller's plan has a feature on (any feature of the plans file, not only the ones the gateway
    /// gates itself), with the plan's name; `unknown-feature` for a name no plan defines.
    public static let checkFeature = RPCMethod<GatewayFeatureRequest, FeatureCheckResponse>(
        id: 0x0515,
        name: "gateway.checkFeature",
        idempotent: true
    )
    /// Adds to one of the caller's counters that the app defines in the plans file (`transactions`, `uploads`),
    /// within its limit, once per idempotency key; `quota-exceeded` past it, `counter-reserved` for a counter the
    /// gateway charges itself.
    public static let consumeCounter = RPCMethod<GatewayCounterRequest, CounterUsage>(
        id: 0x0516,
        name: "gateway.consumeCounter",
        idempotent: true
    )
    /// Gives back an amount of one of the caller's app-defined counters, once per idempotency key (never below 0).
    public static let releaseCounter = RPCMethod<GatewayCounterRequest, CounterUsage>(
        id: 0x0517,
        name: "gateway.releaseCounter",
        idempotent: true
    )
    /// Links a credential to the caller (a guest becomes a member, same uid); on conflict merges, discards or fails.
    public static let link = RPCMethod<LinkRequest, LinkResult>(
        id: 0x0512,
        name: "gateway.link",
        idempotent: true
    )
    /// Decides a conflict returned earlier with its ticket, without presenting the credential again.
    public static let resolveConflict = RPCMethod<ResolveConflictRequest, LinkResult>(
        id: 0x0513,
        name: "gateway.resolveConflict",
        idempotent: true
    )
    /// Deletes the caller's account and everything it owns, in every service.
    public static let deleteAccount = RPCMethod<OperationRequest, DeletionReport>(
        id: 0x0514,
        name: "gateway.deleteAccount",
        idempotent: true
    )

    // MARK: Documents

    /// Writes a document; a new document of a guest first consumes quota.
    public static let putDocument = RPCMethod<GatewayPutRequest, PutDocumentResponse>(
        id: 0x0520,
        name: "gateway.putDocument",
        idempotent: true
    )
    public static let getDocument = RPCMethod<GatewayDocumentRequest, GetDocumentResponse>(
        id: 0x0521,
        name: "gateway.getDocument",
        idempotent: true
    )
    public static let listDocuments = RPCMethod<GatewayListRequest, DocumentPage>(
        id: 0x0522,
        name: "gateway.listDocuments",
        idempotent: true
    )
    /// Deletes a document and gives its quota back.
    public static let deleteDocument = RPCMethod<GatewayDocumentRequest, DeleteDocumentResponse>(
        id: 0x0523,
        name: "gateway.deleteDocument",
        idempotent: true
    )
    /// Every document of the caller, page by page ("download my data").
    public static let exportDocuments = RPCMethod<GatewayExportRequest, DocumentPage>(
        id: 0x0524,
        name: "gateway.exportDocuments",
        idempotent: true
    )
    /// Writes many documents at once: a members-only feature (`import`), refused to guests.
    public static let importDocuments = RPCMethod<GatewayImportRequest, ImportResponse>(
        id: 0x0525,
        name: "gateway.importDocuments",
        idempotent: true
    )

    // MARK: Public information

    /// Identity's signing keys as a JWKS, for app backends that verify access tokens themselves.
    public static let jwks = RPCMethod<Empty, JWKSResponse>(id: 0x0530, name: "gateway.jwks", idempotent: true)
    // 0x0531 is retired: it was `outbox`, which let any client read live sign-in links. The outbox is read only
    // on identity's cluster-secret listener (`IdentityMethods.listOutbox`).

    // MARK: Account management

    /// Mails a password-reset link if an account has the address (a notice otherwise); the same answer either way.
    public static let startPasswordReset = RPCMethod<PasswordResetStartRequest, Empty>(
        id: 0x0540,
        name: "gateway.startPasswordReset",
        idempotent: false
    )
    /// Sets a new password with a reset link's token; every session is signed out and a fresh one answered.
    public static let completePasswordReset = RPCMethod<PasswordResetCompleteRequest, SessionTokens>(
        id: 0x0541,
        name: "gateway.completePasswordReset",
        idempotent: false
    )
    /// Changes the caller's password (the current one, or a recent sign-in); every other session is signed out and
    /// the caller gets a fresh session.
    public static let changePassword = RPCMethod<PasswordChangeRequest, SessionTokens>(
        id: 0x0542,
        name: "gateway.changePassword",
        idempotent: false
    )
    /// Signs the caller (a member) out of every session, and refuses every access token issued before.
    public static let signOutEverywhere = RPCMethod<AuthenticatedRequest, Empty>(
        id: 0x0543,
        name: "gateway.signOutEverywhere",
        idempotent: false
    )
    /// Removes one credential of the caller (a member, recently signed in), never the last one.
    public static let unlinkCredential = RPCMethod<UnlinkRequest, Empty>(
        id: 0x0544,
        name: "gateway.unlinkCredential",
        idempotent: false
    )
    /// Mails a link to the caller's new address (the current password, or a recent sign-in); the same answer whether
    /// or not another account has it.
    public static let startEmailChange = RPCMethod<EmailChangeStartRequest, Empty>(
        id: 0x0545,
        name: "gateway.startEmailChange",
        idempotent: false
    )
    /// Moves the account's email to the new address with the link's token; the old address is told.
    public static let completeEmailChange = RPCMethod<CompleteEmailChangeRequest, Empty>(
        id: 0x0546,
        name: "gateway.completeEmailChange",
        idempotent: false
    )

    // MARK: Device keys

    /// A fresh single-use challenge (5 minutes) for a device key: purpose signIn (then `signIn` with credential
    /// kind 6) or register (then `registerDeviceKey`). No access token; limited per source.
    public static let deviceKeyChallenge = RPCMethod<CreateDeviceKeyChallengeRequest, DeviceKeyChallenge>(
        id: 0x0547,
        name: "gateway.deviceKeyChallenge",
        idempotent: false
    )
    /// Registers a device key for the caller, a guest; a later `signIn` with the key's signature gets a session for
    /// the same guest (after a reinstall, say).
    public static let registerDeviceKey = RPCMethod<DeviceKeyRegisterRequest, DeviceKeyRegistered>(
        id: 0x0548,
        name: "gateway.registerDeviceKey",
        idempotent: false
    )

    // MARK: Sign-up checks

    /// A proof-of-work challenge for `guestSignInWithCheck` where the deployment's sign-up check is
    /// `proof-of-work`; `failed-precondition` where it is another.
    public static let signUpChallenge = RPCMethod<Empty, SignUpChallenge>(
        id: 0x0550,
        name: "gateway.signUpChallenge",
        idempotent: true
    )
    /// `guestSignIn` with the proof the deployment's sign-up check asks for, checked before admission spends anything.
    public static let guestSignInWithCheck = RPCMethod<CheckedGuestSignInRequest, SessionTokens>(
        id: 0x0551,
        name: "gateway.guestSignInWithCheck",
        idempotent: true
    )

    // MARK: The operation table

    /// Every method above, in id order: the gateway's router serves exactly these (`RPCRouter(serving:)`), and
    /// Services/Gateway/README.md's method table is tested against them.
    public static let all: [RPCMethodDescriptor] = [
        guestSignIn.descriptor, signIn.descriptor, refresh.descriptor, startEmailLink.descriptor, signOut.descriptor,
        me.descriptor, quota.descriptor, link.descriptor, resolveConflict.descriptor, deleteAccount.descriptor,
        checkFeature.descriptor, consumeCounter.descriptor, releaseCounter.descriptor,
        putDocument.descriptor, getDocument.descriptor, listDocuments.descriptor, deleteDocument.descriptor,
        exportDocuments.descriptor, importDocuments.descriptor, jwks.descriptor,
        startPasswordReset.descriptor, completePasswordReset.descriptor, changePassword.descriptor,
        signOutEverywhere.descriptor, unlinkCredential.descriptor, startEmailChange.descriptor,
        completeEmailChange.descriptor, deviceKeyChallenge.descriptor, registerDeviceKey.descriptor,
        signUpChallenge.descriptor, guestSignInWithCheck.descriptor,
    ]
}
