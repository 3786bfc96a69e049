/// The protected header of a compact JWS, limited to the parameters FoyerCrypto understands.
///
/// Other header parameters are ignored, except `crit`, whose presence makes a token undecodable
/// (``FoyerCryptoError/unsupportedCriticalHeader``), since RFC 7515 §4.1.11 forbids ignoring it.
public struct JWSHeader: Sendable, Equatable {
    /// `alg`: the signature algorithm.
    public var algorithm: JWSAlgorithm
    /// `kid`: the identifier of the signing key, if given.
    public var keyID: String?
    /// `typ`: the media type of the token (typically "JWT"), if given.
    public var type: String?

    public init(algorithm: JWSAlgorithm, keyID: String? = nil, type: String? = nil) {
        self.algorithm = algorithm
        self.keyID = keyID
        self.type = type
    }
}

/// The JSON form of ``JWSHeader``: encoding writes `alg`, `kid` and `typ`; decoding enforces the allowlist.
struct JWSHeaderJSON: Codable {
    private enum CodingKeys: String, CodingKey {
        case alg, kid, typ, crit
    }

    var header: JWSHeader

    init(_ header: JWSHeader) {
        self.header = header
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        guard !container.contains(.crit) else {
            throw FoyerCryptoError.unsupportedCriticalHeader("the header carries crit")
        }
        let name = try container.decode(String.self, forKey: .alg)
        guard let algorithm = JWSAlgorithm(rawValue: name) else {
            throw FoyerCryptoError.unsupportedAlgorithm(
                name == "none" ? "unsecured tokens (alg none) are never accepted" : "the alg is not on the allowlist"
            )
        }
        header = JWSHeader(
            algorithm: algorithm,
            keyID: try container.decodeIfPresent(String.self, forKey: .kid),
            type: try container.decodeIfPresent(String.self, forKey: .typ)
        )
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(header.algorithm.rawValue, forKey: .alg)
        try container.encodeIfPresent(header.keyID, forKey: .kid)
        try container.encodeIfPresent(header.type, forKey: .typ)
    }
}
