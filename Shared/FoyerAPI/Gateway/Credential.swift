public import FoyerWire
public import NIOCore

/// Something that proves who a person is: an email and password, a redeemed email link, or an Apple / Google
/// ID token.
///
/// ```
/// u8 kind   1 password:  string email (<= 320), string password (<= 1024)
///           2 emailLink: string token (<= 128), bytes verifier (1-128)
///           3 idToken:   u8 provider (1 apple, 2 google), string idToken (<= 8192), optional string rawNonce (<= 256)
/// ```
public enum Credential: Hashable, Sendable {
    case password(email: String, password: String)
    case emailLink(token: String, verifier: [UInt8])
    case idToken(provider: IdentityProvider, idToken: String, rawNonce: String?)

    public init(from buffer: inout ByteBuffer) throws(WireError) {
        switch try buffer.readWire(UInt8.self) {
        case 1:
            self = .password(
                email: try buffer.readLengthPrefixedString(
                    "credential.email",
                    maxBytes: IdentityLimits.emailByteCountMax
                ),
                password: try buffer.readLengthPrefixedString(
                    "credential.password",
                    maxBytes: IdentityLimits.passwordByteCountMax
                )
            )
        case 2:
            let token = try buffer.readLengthPrefixedString(
                "credential.token",
                maxBytes: IdentityLimits.secretTokenByteCountMax
            )
            let verifier = try buffer.readLengthPrefixedBytes(
                "credential.verifier",
                maxBytes: IdentityLimits.verifierByteCountMax
            )
            guard !verifier.isEmpty else { throw .invalidValue("credential.verifier") }
            self = .emailLink(token: token, verifier: verifier)
        case 3:
            self = .idToken(
                provider: try buffer.readEnum(IdentityProvider.self, "credential.provider"),
                idToken: try buffer.readLengthPrefixedString(
                    "credential.idToken",
                    maxBytes: IdentityLimits.idTokenByteCountMax
                ),
                rawNonce: try buffer.readOptional { (buffer) throws(WireError) in
                    try buffer.readLengthPrefixedString(
                        "credential.rawNonce",
                        maxBytes: IdentityLimits.rawNonceByteCountMax
                    )
                }
            )
        default:
            throw .invalidValue("credential.kind")
        }
    }

    public func encode(into buffer: inout ByteBuffer) {
        switch self {
        case .password(let email, let password):
            buffer.writeInteger(UInt8(1))
            buffer.writeLengthPrefixedString(email)
            buffer.writeLengthPrefixedString(password)
        case .emailLink(let token, let verifier):
            buffer.writeInteger(UInt8(2))
            buffer.writeLengthPrefixedString(token)
            buffer.writeLengthPrefixedBytes(verifier)
        case .idToken(let provider, let idToken, let rawNonce):
            buffer.writeInteger(UInt8(3))
            buffer.writeInteger(provider.rawValue)
            buffer.writeLengthPrefixedString(idToken)
            buffer.writeOptional(rawNonce) { $0.writeLengthPrefixedString($1) }
        }
    }
}

/// What `link` does when the credential already belongs to another account (`u8`).
public enum ConflictChoice: UInt8, Sendable, CaseIterable {
    /// Sign in to the account, move the guest's data into it, delete the guest.
    case merge = 0
    /// Sign in to the account and delete the guest with its data.
    case discard = 1
    /// Answer the conflict (identity's status with `ConflictDetails`: the other uid and a ticket), change nothing.
    case fail = 2
}
