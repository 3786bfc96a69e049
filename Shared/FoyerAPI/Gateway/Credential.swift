public import FoyerWire
public import NIOCore

/// Something that proves who a person is: an email and password, a redeemed email link, the code from that email,
/// or an Apple / Google ID token (with, for Apple, the authorization code the app got with it).
///
/// ```
/// u8 kind   1 password:  string email (<= 320), string password (<= 1024)
///           2 emailLink: string token (<= 128), bytes verifier (1-128)
///           3 idToken:   u8 provider (1 apple, 2 google), string idToken (<= 8192), optional string rawNonce (<= 256)
///           4 idToken with an authorization code: kind 3's fields, then string authorizationCode (1-1024)
///           5 emailCode: string email (<= 320), string code (exactly 6 ASCII digits, `EmailCode`)
///           6 deviceKey: bytes keyID (exactly 32), bytes challenge (exactly 32), bytes signature (exactly 64, raw
///                        r || s over `DeviceKey.signedMessage(.signIn, issuer, challenge)`); sign-in only
/// ```
///
/// ``idToken(provider:idToken:rawNonce:authorizationCode:)`` is sent as kind 3 without a code and as kind 4 with
/// one, so a client that sends no code speaks to gateways that predate kind 4. A gateway that predates kind 5 (or 6)
/// refuses it as an unknown kind (`invalid-argument`, `credential.kind`); only a client that sends it needs the
/// newer gateway.
public enum Credential: Hashable, Sendable {
    case password(email: String, password: String)
    case emailLink(token: String, verifier: [UInt8])
    /// The six-digit code from a sign-in or link email, with the address it was sent to: works on any device.
    case emailCode(email: String, code: String)
    /// A registered device key's signature of a `signIn` challenge (`DeviceKey`): signs in to the guest that
    /// registered the key. Only `signIn` takes it; `link` refuses it (`invalid-argument`).
    case deviceKey(keyID: [UInt8], challenge: [UInt8], signature: [UInt8])
    /// `authorizationCode`: Sign in with Apple's code (ASAuthorizationAppleIDCredential's `authorizationCode`), which
    /// identity exchanges for a refresh token it revokes when the account is deleted; ignored for Google.
    case idToken(provider: IdentityProvider, idToken: String, rawNonce: String?, authorizationCode: String? = nil)

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
        case let kind where kind == 3 || kind == 4:
            let provider = try buffer.readEnum(IdentityProvider.self, "credential.provider")
            let idToken = try buffer.readLengthPrefixedString(
                "credential.idToken",
                maxBytes: IdentityLimits.idTokenByteCountMax
            )
            let rawNonce = try buffer.readOptional { (buffer) throws(WireError) in
                try buffer.readLengthPrefixedString(
                    "credential.rawNonce",
                    maxBytes: IdentityLimits.rawNonceByteCountMax
                )
            }
            var code: String?
            if kind == 4 {
                code = try buffer.readLengthPrefixedString(
                    "credential.authorizationCode",
                    maxBytes: IdentityLimits.authorizationCodeByteCountMax
                )
                guard code?.isEmpty == false else { throw .invalidValue("credential.authorizationCode") }
            }
            self = .idToken(provider: provider, idToken: idToken, rawNonce: rawNonce, authorizationCode: code)
        case 5:
            let email = try buffer.readLengthPrefixedString(
                "credential.email",
                maxBytes: IdentityLimits.emailByteCountMax
            )
            let code = try buffer.readLengthPrefixedString("credential.code", maxBytes: EmailCode.digitCount)
            guard EmailCode.isWellFormed(code) else { throw .invalidValue("credential.code") }
            self = .emailCode(email: email, code: code)
        case 6:
            self = .deviceKey(
                keyID: try buffer.readDeviceKeyField("credential.keyID", byteCount: DeviceKey.keyIDByteCount),
                challenge: try buffer.readDeviceKeyField(
                    "credential.challenge",
                    byteCount: DeviceKey.challengeByteCount
                ),
                signature: try buffer.readDeviceKeyField(
                    "credential.signature",
                    byteCount: DeviceKey.signatureByteCount
                )
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
        case .emailCode(let email, let code):
            buffer.writeInteger(UInt8(5))
            buffer.writeLengthPrefixedString(email)
            buffer.writeLengthPrefixedString(code)
        case .deviceKey(let keyID, let challenge, let signature):
            buffer.writeInteger(UInt8(6))
            buffer.writeLengthPrefixedBytes(keyID)
            buffer.writeLengthPrefixedBytes(challenge)
            buffer.writeLengthPrefixedBytes(signature)
        case .idToken(let provider, let idToken, let rawNonce, let code):
            buffer.writeInteger(UInt8(code == nil ? 3 : 4))
            buffer.writeInteger(provider.rawValue)
            buffer.writeLengthPrefixedString(idToken)
            buffer.writeOptional(rawNonce) { $0.writeLengthPrefixedString($1) }
            if let code { buffer.writeLengthPrefixedString(code) }
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
