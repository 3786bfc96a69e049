/// The claims of Foyer's access tokens. The header is `{"alg":…,"kid":…,"typ":"at+jwt"}`, `alg` the algorithm of
/// identity's signing key (ES256, RS256 or EdDSA, as deployed); the `typ`
/// (RFC 9068) keeps access tokens apart from every other JWT, so an ID token or a token of another kind signed
/// by the same key is never taken for one.
///
/// `plan` and `roles` let an app's backend authorise without calling Foyer: the user's plan (as guest-quota
/// applies it) and its app-defined roles (RFC 9068 §7.2.1.1), as they were when the token was minted. Tokens
/// minted before they existed lack them: they read as no plan and no roles.
public struct AccessTokenClaims: Codable, Sendable, Equatable {
    public static let type = "at+jwt"

    private enum CodingKeys: String, CodingKey {
        case subject = "sub", isAnonymous = "is_anonymous", sessionID = "sid", issuer = "iss", audience = "aud"
        case issuedAt = "iat", expiresAt = "exp", plan, roles
    }

    public var subject: String
    public var isAnonymous: Bool
    public var sessionID: String
    public var issuer: String
    /// Written as one string; read as a string or an array of strings (RFC 7519 allows both).
    public var audience: [String]
    public var issuedAt: Int64
    public var expiresAt: Int64
    /// The user's plan; nil only in a token minted before plans were named in tokens.
    public var plan: String?
    /// The user's app-defined roles, sorted; empty when it has none.
    public var roles: [String]

    public init(
        subject: String,
        isAnonymous: Bool,
        sessionID: String,
        issuer: String,
        audience: String,
        issuedAt: Int64,
        expiresAt: Int64,
        plan: String? = nil,
        roles: [String] = []
    ) {
        self.subject = subject
        self.isAnonymous = isAnonymous
        self.sessionID = sessionID
        self.issuer = issuer
        self.audience = [audience]
        self.issuedAt = issuedAt
        self.expiresAt = expiresAt
        self.plan = plan
        self.roles = roles
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        subject = try container.decode(String.self, forKey: .subject)
        isAnonymous = try container.decode(Bool.self, forKey: .isAnonymous)
        sessionID = try container.decode(String.self, forKey: .sessionID)
        issuer = try container.decode(String.self, forKey: .issuer)
        if let single = try? container.decode(String.self, forKey: .audience) {
            audience = [single]
        } else {
            audience = try container.decode([String].self, forKey: .audience)
        }
        issuedAt = try container.decode(Int64.self, forKey: .issuedAt)
        expiresAt = try container.decode(Int64.self, forKey: .expiresAt)
        plan = try container.decodeIfPresent(String.self, forKey: .plan)
        roles = try container.decodeIfPresent([String].self, forKey: .roles) ?? []
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(subject, forKey: .subject)
        try container.encode(isAnonymous, forKey: .isAnonymous)
        try container.encode(sessionID, forKey: .sessionID)
        try container.encode(issuer, forKey: .issuer)
        if audience.count == 1 {
            try container.encode(audience[0], forKey: .audience)
        } else {
            try container.encode(audience, forKey: .audience)
        }
        try container.encode(issuedAt, forKey: .issuedAt)
        try container.encode(expiresAt, forKey: .expiresAt)
        try container.encodeIfPresent(plan, forKey: .plan)
        try container.encode(roles, forKey: .roles)
    }
}
