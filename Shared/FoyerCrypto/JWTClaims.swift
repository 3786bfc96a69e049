#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// The registered claims of a JWT (RFC 7519 §4.1). Unknown claims are ignored when decoding.
///
/// Decoding only checks types; whether the token has expired, is not yet valid, or is meant for this audience
/// is for the caller to decide.
public struct JWTClaims: Codable, Sendable, Equatable {
    private enum CodingKeys: String, CodingKey {
        case issuer = "iss", subject = "sub", audience = "aud", expiresAt = "exp", notBefore = "nbf"
        case issuedAt = "iat", jwtID = "jti"
    }

    /// `iss`.
    public var issuer: String?
    /// `sub`.
    public var subject: String?
    /// `aud`, which JSON may carry as one string or an array of strings; encoded as a string when it has
    /// exactly one element.
    public var audience: [String]?
    /// `exp`, a NumericDate.
    public var expiresAt: Date?
    /// `nbf`, a NumericDate.
    public var notBefore: Date?
    /// `iat`, a NumericDate.
    public var issuedAt: Date?
    /// `jti`.
    public var jwtID: String?

    public init(
        issuer: String? = nil,
        subject: String? = nil,
        audience: [String]? = nil,
        expiresAt: Date? = nil,
        notBefore: Date? = nil,
        issuedAt: Date? = nil,
        jwtID: String? = nil
    ) {
        self.issuer = issuer
        self.subject = subject
        self.audience = audience
        self.expiresAt = expiresAt
        self.notBefore = notBefore
        self.issuedAt = issuedAt
        self.jwtID = jwtID
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        issuer = try container.decodeIfPresent(String.self, forKey: .issuer)
        subject = try container.decodeIfPresent(String.self, forKey: .subject)
        if let single = try? container.decodeIfPresent(String.self, forKey: .audience) {
            audience = [single]
        } else {
            audience = try container.decodeIfPresent([String].self, forKey: .audience)
        }
        expiresAt = try Self.decodeNumericDate(container, .expiresAt)
        notBefore = try Self.decodeNumericDate(container, .notBefore)
        issuedAt = try Self.decodeNumericDate(container, .issuedAt)
        jwtID = try container.decodeIfPresent(String.self, forKey: .jwtID)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeIfPresent(issuer, forKey: .issuer)
        try container.encodeIfPresent(subject, forKey: .subject)
        if let audience, audience.count == 1 {
            try container.encode(audience[0], forKey: .audience)
        } else {
            try container.encodeIfPresent(audience, forKey: .audience)
        }
        try Self.encodeNumericDate(expiresAt, &container, .expiresAt)
        try Self.encodeNumericDate(notBefore, &container, .notBefore)
        try Self.encodeNumericDate(issuedAt, &container, .issuedAt)
        try container.encodeIfPresent(jwtID, forKey: .jwtID)
    }

    /// NumericDate: seconds since the epoch, possibly fractional (RFC 7519 §2).
    private static func decodeNumericDate(
        _ container: KeyedDecodingContainer<CodingKeys>,
        _ key: CodingKeys
    ) throws -> Date? {
        guard let seconds = try container.decodeIfPresent(Double.self, forKey: key) else { return nil }
        guard seconds.isFinite else {
            throw DecodingError.dataCorruptedError(
                forKey: key,
                in: container,
                debugDescription: "not a finite NumericDate"
            )
        }
        return Date(timeIntervalSince1970: seconds)
    }

    /// Whole seconds are written as integers, which is what most verifiers expect.
    private static func encodeNumericDate(
        _ date: Date?,
        _ container: inout KeyedEncodingContainer<CodingKeys>,
        _ key: CodingKeys
    ) throws {
        guard let seconds = date?.timeIntervalSince1970 else { return }
        if seconds.rounded() == seconds, let whole = Int64(exactly: seconds) {
            try container.encode(whole, forKey: key)
        } else {
            try container.encode(seconds, forKey: key)
        }
    }
}
