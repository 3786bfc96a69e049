/// The caps of the identity contract's fields, in bytes (or elements for lists). A body over a cap is refused by
/// the decoder, before any handler runs (and so before anything is hashed).
public enum IdentityLimits {
    /// A uid: 32 lowercase hex digits today; the cap leaves room for other printable forms.
    public static let uidByteCountMax = 64
    /// An email address as sent (RFC 5321 allows 254 in a path; the policy check is stricter than this cap).
    public static let emailByteCountMax = 320
    /// A password as sent. The service's policy refuses long passwords well below this, before hashing.
    public static let passwordByteCountMax = 1024
    /// A refresh token, an email-link token or a conflict ticket (43 base64url characters today).
    public static let secretTokenByteCountMax = 128
    /// An access token (Foyer's own JWT).
    public static let accessTokenByteCountMax = 4096
    /// An Apple or Google ID token.
    public static let idTokenByteCountMax = 8192
    /// A caller's idempotency key or operation id.
    public static let idempotencyKeyByteCountMax = 128
    public static let operationIDByteCountMax = 128
    /// The raw nonce the app hashed into an ID-token request.
    public static let rawNonceByteCountMax = 256
    /// A Sign in with Apple authorization code (single use, valid five minutes; about 64 characters today).
    public static let authorizationCodeByteCountMax = 1024
    /// The email-link verifier (the client's secret); its challenge is exactly 32 bytes (SHA-256).
    public static let verifierByteCountMax = 128
    public static let verifierChallengeByteCount = 32
    /// The client's address as the gateway saw it (IPv4 or IPv6 text, or empty when unknown).
    public static let sourceByteCountMax = 64
    /// A session id (32 hex digits today).
    public static let sessionIDByteCountMax = 64
    /// A key id, a provider subject.
    public static let keyIDByteCountMax = 128
    public static let subjectByteCountMax = 255
    /// The JWK Set JSON.
    public static let jwksByteCountMax = 64 << 10
    /// Outbox messages.
    public static let mailSubjectByteCountMax = 256
    public static let mailBodyByteCountMax = 8 << 10
    /// Elements of a listed page (expired guests, stuck accounts, outbox messages).
    public static let listCountMax = 1000
    /// Linked provider identities of one user.
    public static let providersCountMax = 16
    /// An admin key's id (16 hex digits today) or a `createdBy` (a key id or "cluster-secret").
    public static let adminKeyIDByteCountMax = 64
    /// An admin key's name (a label: A–Z a–z 0–9 . _ @ -).
    public static let adminKeyNameByteCountMax = 64
    /// An admin key as presented (`foyer_admin_<keyID>_<secret>`, 72 bytes today).
    public static let adminKeyByteCountMax = 128
    /// Admin keys identity holds, revoked ones included; `createAdminKey` refuses more.
    public static let adminKeysCountMax = 1000
    /// An audit entry's action name, its target (a uid or key id) and its outcome ("ok" or a status name).
    public static let adminActionByteCountMax = 64
    public static let adminTargetByteCountMax = 128
    public static let adminOutcomeByteCountMax = 64
    /// A plan or role name in a user's access tokens (1–64 bytes; see `setUserPlan`, `setUserRoles`).
    public static let grantNameByteCountMax = 64
    /// App-defined roles of one user.
    public static let rolesCountMax = 16
}
