/// The claims of Foyer's access tokens. The header is `{"alg":"EdDSA","kid":…,"typ":"at+jwt"}`; the `typ`
/// (RFC 9068) keeps access tokens apart from every other JWT, so an ID token or a token of another kind signed
/// by the same key is never taken for one.
public struct AccessTokenClaims: Codable, Sendable, Equatable {
    public static let type = "at+jwt"

    private enum CodingKeys: String, CodingKey {
        case subject = "sub", isAnonymous = "is_anonymous", sessionID = "sid", issuer = "iss", audience = "aud"
        case issuedAt = "iat", expiresAt = "exp"
    }

    public var subject: String
    public var isAnonymous: Bool
    public var sessionID: String
    public var issuer: String
    /// Written as one string; read as a string or an array of strings (RFC 7519 allows both).
    public var audience: [String]
    public var issuedAt: Int64
    public var expiresAt: Int64

    public init(
        subject: String,
        isAnonymous: Bool,
        sessionID: String,
        issuer: String,
        audience: String,
        issuedAt: Int64,
        expiresAt: Int64
    ) {
        self.subject = subject
        self.isAnonymous = isAnonymous
        self.sessionID = sessionID
        self.issuer = issuer
        self.audience = [audience]
        self.issuedAt = issuedAt
        self.expiresAt = expiresAt
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
    }
}
