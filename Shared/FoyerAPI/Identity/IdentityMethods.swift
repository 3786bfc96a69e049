public import FoyerWire

/// The methods of the `identity` service (ids `0x0101`–`0x01FF`), with their request and response messages.
///
/// Identity trusts its cluster-authenticated caller (the gateway, the cleanup service): methods that act for a
/// user take that user's uid explicitly, as authenticated by the caller. Methods marked idempotent may be sent
/// again when their outcome is unknown; `Services/Identity/README.md` says why each one is safe to repeat.
public enum IdentityMethods {
    // MARK: Guests, sessions and tokens

    /// Creates a guest and its first session. Retried with the same idempotency key within the service's window,
    /// it returns the same guest (with a fresh session that replaces the one issued before under that key).
    public static let createGuest = RPCMethod<CreateGuestRequest, SessionTokens>(
        id: 0x0101,
        name: "identity.createGuest",
        idempotent: true
    )
    /// Rotates a refresh token: a new refresh token and a new access token. The immediate predecessor presented
    /// again within the reuse grace returns the same successor; any other reuse revokes the whole session.
    public static let refreshSession = RPCMethod<RefreshSessionRequest, SessionTokens>(
        id: 0x0102,
        name: "identity.refreshSession",
        idempotent: true
    )
    /// Verifies an access token (signature, claims, the user's not-before, its session) and says whom it is for.
    public static let verifyAccessToken = RPCMethod<VerifyAccessTokenRequest, VerifiedAccessToken>(
        id: 0x0103,
        name: "identity.verifyAccessToken",
        idempotent: true
    )
    /// Revokes one session of a user (a member's sign-out).
    public static let revokeSession = RPCMethod<RevokeSessionRequest, Empty>(
        id: 0x0104,
        name: "identity.revokeSession",
        idempotent: true
    )
    /// Revokes every session of a user and moves the user's not-before to now, so older access tokens fail.
    public static let revokeAllSessions = RPCMethod<IdentityUserRequest, Empty>(
        id: 0x0105,
        name: "identity.revokeAllSessions",
        idempotent: true
    )
    /// The public signing keys as a JWK Set (JSON), for anyone who verifies access tokens offline.
    public static let getJWKS = RPCMethod<Empty, JWKSResponse>(
        id: 0x0106,
        name: "identity.getJWKS",
        idempotent: true
    )
    /// Creates a new signing key, published at once, that signs after identity's activation delay (120 s by
    /// default; the current key signs until then); the previous keys stay published until the tokens they signed
    /// have expired.
    public static let rotateSigningKey = RPCMethod<Empty, SigningKeyRotated>(
        id: 0x0107,
        name: "identity.rotateSigningKey",
        idempotent: false
    )
    /// What identity knows about a user: state, times, credentials (no secrets).
    public static let getUser = RPCMethod<IdentityUserRequest, UserInfo>(
        id: 0x0108,
        name: "identity.getUser",
        idempotent: true
    )
    /// Records that the user was active now (written at most once per interval per user).
    public static let recordActivity = RPCMethod<IdentityUserRequest, Empty>(
        id: 0x0109,
        name: "identity.recordActivity",
        idempotent: true
    )

    // MARK: Email and password

    /// Attaches an email and password to a user (a guest signing up); the user keeps its uid and becomes
    /// permanent. Answers fresh tokens, or the account that holds the email when the password is that account's.
    public static let linkPassword = RPCMethod<LinkPasswordRequest, LinkAttempt>(
        id: 0x0110,
        name: "identity.linkPassword",
        idempotent: true
    )
    /// Signs in with an email and password.
    public static let signInWithPassword = RPCMethod<PasswordSignInRequest, SessionTokens>(
        id: 0x0111,
        name: "identity.signInWithPassword",
        idempotent: true
    )

    // MARK: Passwordless email link

    /// Sends a single-use sign-in (or link) token to an address. Answers the same whether the address is known.
    public static let startEmailLink = RPCMethod<StartEmailLinkRequest, Empty>(
        id: 0x0120,
        name: "identity.startEmailLink",
        idempotent: false
    )
    /// Redeems an email-link token together with the verifier of the client that asked for it. A link token
    /// answers the account that holds the address when it is not the caller's.
    public static let completeEmailLink = RPCMethod<CompleteEmailLinkRequest, LinkAttempt>(
        id: 0x0121,
        name: "identity.completeEmailLink",
        idempotent: false
    )
    /// The messages the outbox mailer holds, newest first (only when the outbox mailer is configured).
    public static let listOutbox = RPCMethod<ListOutboxRequest, OutboxMessages>(
        id: 0x0122,
        name: "identity.listOutbox",
        idempotent: true
    )
    /// Redeems the code from the newest sign-in (or link) email sent to an address, on any device: no verifier.
    /// Spends the email's link too. A link code answers the account that holds the address when it is not the
    /// caller's.
    public static let completeEmailCode = RPCMethod<CompleteEmailCodeRequest, LinkAttempt>(
        id: 0x0123,
        name: "identity.completeEmailCode",
        idempotent: false
    )

    // MARK: Device keys

    /// A fresh single-use challenge (5 minutes) for a device key to sign, for sign-in or registration.
    public static let createDeviceKeyChallenge = RPCMethod<CreateDeviceKeyChallengeRequest, DeviceKeyChallenge>(
        id: 0x0124,
        name: "identity.createDeviceKeyChallenge",
        idempotent: false
    )
    /// Registers a guest's device key (the signature of a `register` challenge proves the private key).
    public static let registerDeviceKey = RPCMethod<RegisterDeviceKeyRequest, DeviceKeyRegistered>(
        id: 0x0125,
        name: "identity.registerDeviceKey",
        idempotent: false
    )
    /// Signs in to the guest that registered the key, with its signature of a `signIn` challenge.
    public static let signInWithDeviceKey = RPCMethod<DeviceKeySignInRequest, SessionTokens>(
        id: 0x0126,
        name: "identity.signInWithDeviceKey",
        idempotent: false
    )

    // MARK: Sign in with Apple / Google

    /// Signs in (creating the account on first use) with a provider's ID token.
    public static let signInWithProvider = RPCMethod<ProviderSignInRequest, SessionTokens>(
        id: 0x0130,
        name: "identity.signInWithProvider",
        idempotent: false
    )
    /// Attaches a provider identity to a user (a guest signing up); the user keeps its uid and becomes permanent.
    /// Answers the account that holds the provider identity when it is another's.
    public static let linkProvider = RPCMethod<LinkProviderRequest, LinkAttempt>(
        id: 0x0131,
        name: "identity.linkProvider",
        idempotent: false
    )

    // MARK: Account lifecycle

    /// Link-or-merge in one call: verifies the caller's token (under the request's requirement) and attaches the
    /// credential, or, when it proves another account: answers the conflict (`fail`), or signs in to that account
    /// and begins the guest's merge into it or its deletion in the same transaction (the guest is signed out
    /// everywhere). A retry under the same operation is answered where the first attempt got to (`continuing`,
    /// `finished`), or with the answer the gateway remembered (`recalled`).
    public static let link = RPCMethod<LinkAccountRequest, LinkStep>(
        id: 0x0141,
        name: "identity.link",
        idempotent: false
    )
    /// Delete-everything's (and a sign-out's) first step in one call: verifies the caller's token and marks the user
    /// `deleting(op)`, signed out everywhere: the point of no return. A retry is answered as for `link`.
    public static let deleteAccount = RPCMethod<DeleteAccountRequest, DeletionStep>(
        id: 0x0157,
        name: "identity.deleteAccount",
        idempotent: true
    )
    /// Deletes a guest that is `merging` under the operation, writing its `user.merged` event with the report's
    /// totals, and keeps the gateway's answer when one is given, in the same transaction.
    public static let finishMerge = RPCMethod<FinishMergeRequest, Empty>(
        id: 0x0151,
        name: "identity.finishMerge",
        idempotent: true
    )
    /// Marks a user `deleting(op)` and revokes every session: the point of no return.
    public static let beginDelete = RPCMethod<BeginDeleteRequest, AccountState>(
        id: 0x0152,
        name: "identity.beginDelete",
        idempotent: true
    )
    /// Revokes the user's Sign in with Apple token at Apple if identity keeps one (`apple-unavailable` when Apple
    /// cannot be reached: the call is repeated later), then removes everything identity holds about a user that is
    /// `deleting` under the operation, writing its `user.deleted` event with the reason given at `beginDelete`, and
    /// keeps the gateway's answer when one is given, in the same transaction.
    public static let finishDelete = RPCMethod<FinishDeleteRequest, Empty>(
        id: 0x0153,
        name: "identity.finishDelete",
        idempotent: true
    )
    /// `beginDelete` for up to 1000 users in one transaction (the inactivity clean-up): one outcome per user, `done`
    /// or the status `beginDelete` would answer for that user alone.
    public static let beginDeleteBatch = RPCMethod<Batch<BeginDeleteRequest>, Batch<BatchOutcome>>(
        id: 0x0155,
        name: "identity.beginDeleteBatch",
        idempotent: true
    )
    /// `finishDelete` (without answers) for up to 1000 users in one transaction: one outcome per user.
    public static let finishDeleteBatch = RPCMethod<Batch<IdentityOperationRequest>, Batch<BatchOutcome>>(
        id: 0x0156,
        name: "identity.finishDeleteBatch",
        idempotent: true
    )
    /// Users left in `merging` or `deleting` for longer than an age, oldest first.
    public static let listStuckAccounts = RPCMethod<ListStuckAccountsRequest, StuckAccounts>(
        id: 0x0154,
        name: "identity.listStuckAccounts",
        idempotent: true
    )

    // MARK: Expired guests

    /// Active guests whose last activity is older than a cutoff, oldest first, one page at a time.
    public static let listExpiredGuests = RPCMethod<ListExpiredGuestsRequest, ExpiredGuests>(
        id: 0x0160,
        name: "identity.listExpiredGuests",
        idempotent: true
    )

    // MARK: Administration

    /// One user by uid or email (normalised as sign-in does), with its live sessions; `not-found` when none.
    public static let findUser = RPCMethod<FindUserRequest, AdminUserInfo>(
        id: 0x0170,
        name: "identity.findUser",
        idempotent: true
    )
    /// One page of users of a kind, by creation or last activity, in either direction (keyset paging).
    public static let listUsers = RPCMethod<ListUsersRequest, UserSummaries>(
        id: 0x0171,
        name: "identity.listUsers",
        idempotent: true
    )
    /// How many guests and members are active, created since a time, being deleted and being merged.
    public static let userCounts = RPCMethod<UserCountsRequest, UserCounts>(
        id: 0x0172,
        name: "identity.userCounts",
        idempotent: true
    )
    /// Makes an admin key; the answer holds the key itself, which identity keeps only hashed. At most 1000 keys.
    public static let createAdminKey = RPCMethod<CreateAdminKeyRequest, AdminKeyCreated>(
        id: 0x0173,
        name: "identity.createAdminKey",
        idempotent: false
    )
    /// Every admin key (never a secret), newest first.
    public static let listAdminKeys = RPCMethod<Empty, AdminKeys>(
        id: 0x0174,
        name: "identity.listAdminKeys",
        idempotent: true
    )
    /// Revokes an admin key; revoking it again keeps the first time. `not-found` for an unknown key id.
    public static let revokeAdminKey = RPCMethod<AdminKeyRequest, AdminKeyInfo>(
        id: 0x0175,
        name: "identity.revokeAdminKey",
        idempotent: true
    )
    /// Says which unrevoked admin key a presented key is; `unauthenticated` (one message) for anything else.
    public static let verifyAdminKey = RPCMethod<VerifyAdminKeyRequest, AdminKeyInfo>(
        id: 0x0176,
        name: "identity.verifyAdminKey",
        idempotent: true
    )
    /// Writes an audit entry (who, what, on what) before an admin action runs; answers its id.
    public static let beginAdminAction = RPCMethod<AdminActionStart, AdminActionID>(
        id: 0x0177,
        name: "identity.beginAdminAction",
        idempotent: false
    )
    /// Records how an audited action ended (the first outcome recorded stays).
    public static let endAdminAction = RPCMethod<AdminActionEnd, Empty>(
        id: 0x0178,
        name: "identity.endAdminAction",
        idempotent: true
    )
    /// One page of the audit log, newest first.
    public static let listAdminActions = RPCMethod<ListAdminActionsRequest, AdminActions>(
        id: 0x0179,
        name: "identity.listAdminActions",
        idempotent: true
    )

    // MARK: Account management

    /// Mails a single-use password-reset link to the address if an account has it as its email credential, and a
    /// notice without a link otherwise: the answer (and the mail sent) is the same whether the address is known.
    public static let startPasswordReset = RPCMethod<StartPasswordResetRequest, Empty>(
        id: 0x0180,
        name: "identity.startPasswordReset",
        idempotent: false
    )
    /// Redeems a password-reset token: sets the new password, marks the email verified, revokes every session and
    /// every access token issued before, and answers a fresh session.
    public static let completePasswordReset = RPCMethod<CompletePasswordResetRequest, SessionTokens>(
        id: 0x0181,
        name: "identity.completePasswordReset",
        idempotent: false
    )
    /// Changes (or sets) a member's password, given the current one or from a recent sign-in; revokes every
    /// session and every access token issued before, and answers a fresh session for the caller.
    public static let changePassword = RPCMethod<ChangePasswordRequest, SessionTokens>(
        id: 0x0182,
        name: "identity.changePassword",
        idempotent: false
    )
    /// Removes one credential of a member (from a recent sign-in), never the last one.
    public static let unlinkCredential = RPCMethod<UnlinkCredentialRequest, Empty>(
        id: 0x0183,
        name: "identity.unlinkCredential",
        idempotent: false
    )
    /// Mails a single-use link to a member's new address (from the current password or a recent sign-in); the same
    /// answer whether or not another account has that address.
    public static let startEmailChange = RPCMethod<StartEmailChangeRequest, Empty>(
        id: 0x0184,
        name: "identity.startEmailChange",
        idempotent: false
    )
    /// Redeems an email-change token: the account's email credential moves to the new address (password kept,
    /// verified), and the old address is told.
    public static let completeEmailChange = RPCMethod<CompleteEmailChangeRequest, Empty>(
        id: 0x0185,
        name: "identity.completeEmailChange",
        idempotent: false
    )

    // MARK: Plans and roles in access tokens

    /// Sets the plan named in the user's access tokens from now on (the gateway, after guest-quota's `changePlan`).
    public static let setUserPlan = RPCMethod<SetUserPlanRequest, Empty>(
        id: 0x01B0,
        name: "identity.setUserPlan",
        idempotent: true
    )

    /// Replaces the app-defined roles named in the user's access tokens from now on.
    public static let setUserRoles = RPCMethod<SetUserRolesRequest, Empty>(
        id: 0x01B1,
        name: "identity.setUserRoles",
        idempotent: true
    )

    // MARK: The gateways' shared memory of finished operations

    /// Stores the (sealed) answer of a finished gateway operation for `lifetimeSeconds`, unless an answer is already
    /// stored under its id (the first stays).
    public static let rememberOperationAnswer = RPCMethod<RememberOperationAnswerRequest, Empty>(
        id: 0x01C0,
        name: "identity.rememberOperationAnswer",
        idempotent: true
    )

    // MARK: Events to the app's backend

    /// One page of identity's events (webhook outbox), newest first, of one user and/or in one state.
    public static let listEvents = RPCMethod<ListEventsRequest, EventPage>(
        id: 0x01A0,
        name: "identity.listEvents",
        idempotent: true
    )
    /// One event by id, with its delivery state and body; `not-found` when there is none (or it was pruned).
    public static let getEvent = RPCMethod<EventRequest, EventInfo>(
        id: 0x01A1,
        name: "identity.getEvent",
        idempotent: true
    )
    /// Makes an event pending again, due now, its attempts counted from zero: it is delivered again, with the same id.
    public static let replayEvent = RPCMethod<EventRequest, EventInfo>(
        id: 0x01A2,
        name: "identity.replayEvent",
        idempotent: true
    )
    // MARK: The operation table

    /// Every method above: the router serves exactly these (`RPCRouter(serving:)`), and the README's method table
    /// is tested against them.
    public static let all: [RPCMethodDescriptor] = [
        createGuest.descriptor, refreshSession.descriptor, verifyAccessToken.descriptor, revokeSession.descriptor,
        revokeAllSessions.descriptor, getJWKS.descriptor, rotateSigningKey.descriptor, getUser.descriptor,
        recordActivity.descriptor, linkPassword.descriptor, signInWithPassword.descriptor, startEmailLink.descriptor,
        completeEmailLink.descriptor, listOutbox.descriptor, completeEmailCode.descriptor,
        createDeviceKeyChallenge.descriptor, registerDeviceKey.descriptor, signInWithDeviceKey.descriptor,
        signInWithProvider.descriptor, linkProvider.descriptor,
        link.descriptor, deleteAccount.descriptor, finishMerge.descriptor, beginDelete.descriptor,
        finishDelete.descriptor, beginDeleteBatch.descriptor, finishDeleteBatch.descriptor,
        listStuckAccounts.descriptor, listExpiredGuests.descriptor, findUser.descriptor, listUsers.descriptor,
        userCounts.descriptor, createAdminKey.descriptor, listAdminKeys.descriptor, revokeAdminKey.descriptor,
        verifyAdminKey.descriptor, beginAdminAction.descriptor, endAdminAction.descriptor,
        listAdminActions.descriptor,
        startPasswordReset.descriptor, completePasswordReset.descriptor, changePassword.descriptor,
        unlinkCredential.descriptor, startEmailChange.descriptor, completeEmailChange.descriptor,
        setUserPlan.descriptor, setUserRoles.descriptor, rememberOperationAnswer.descriptor,
        listEvents.descriptor, getEvent.descriptor, replayEvent.descriptor,
    ]
}
