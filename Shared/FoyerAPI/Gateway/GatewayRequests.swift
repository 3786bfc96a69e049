public import FoyerWire
public import NIOCore

/// Fields every gateway request shares, with their caps.
public enum GatewayLimits {
    /// Idempotency keys and operation ids: 1–128 bytes chosen by the client (a UUID is typical).
    public static let operationIDByteCountMax = 128
    /// Documents in one `importDocuments`.
    public static let importCountMax = 100
}

/// A request that only identifies the caller: `string accessToken` (<= 4096 bytes).
public struct AuthenticatedRequest: WireMessage, Hashable {
    public var accessToken: String

    public init(accessToken: String) { self.accessToken = accessToken }

    public init(from buffer: inout ByteBuffer) throws(WireError) {
        accessToken = try buffer.readAccessToken()
    }

    public func encode(into buffer: inout ByteBuffer) { buffer.writeLengthPrefixedString(accessToken) }
}

/// A multi-service operation of the caller: `string accessToken`, `string operationID` (1–128 bytes).
public struct OperationRequest: WireMessage, Hashable {
    public var accessToken: String
    public var operationID: String

    public init(accessToken: String, operationID: String) {
        self.accessToken = accessToken
        self.operationID = operationID
    }

    public init(from buffer: inout ByteBuffer) throws(WireError) {
        accessToken = try buffer.readAccessToken()
        operationID = try buffer.readOperationID()
    }

    public func encode(into buffer: inout ByteBuffer) {
        buffer.writeLengthPrefixedString(accessToken)
        buffer.writeLengthPrefixedString(operationID)
    }
}

/// `guestSignIn`:
/// ```
/// string          idempotencyKey   as identity's `CreateGuestRequest` (22–128 base64url characters carrying 128
///                                  random bits; identity refuses others with `invalid-argument`); the same key
///                                  returns the same guest
/// optional string loadTestSource   <= 64 bytes: an address for sign-up admission to count instead of the
///                                  socket's; honoured only by a gateway started with `--load-test-sources`
/// ```
public struct GuestSignInRequest: WireMessage, Hashable {
    public var idempotencyKey: String
    public var loadTestSource: String?

    public init(idempotencyKey: String, loadTestSource: String? = nil) {
        self.idempotencyKey = idempotencyKey
        self.loadTestSource = loadTestSource
    }

    public init(from buffer: inout ByteBuffer) throws(WireError) {
        idempotencyKey = try buffer.readOperationID()
        loadTestSource = try buffer.readOptional { (buffer) throws(WireError) in
            try buffer.readLengthPrefixedString("guestSignIn.loadTestSource", maxBytes: 64)
        }
    }

    public func encode(into buffer: inout ByteBuffer) {
        buffer.writeLengthPrefixedString(idempotencyKey)
        buffer.writeOptional(loadTestSource) { $0.writeLengthPrefixedString($1) }
    }
}

/// `signIn`: a `Credential`.
public struct SignInRequest: WireMessage, Hashable {
    public var credential: Credential

    public init(credential: Credential) { self.credential = credential }

    public init(from buffer: inout ByteBuffer) throws(WireError) { credential = try Credential(from: &buffer) }

    public func encode(into buffer: inout ByteBuffer) { credential.encode(into: &buffer) }
}

/// `startEmailLink`:
/// ```
/// u8              purpose             1 sign in, 2 link (then the access token is required)
/// string          email               <= 320 bytes
/// optional string accessToken         <= 4096 bytes: the user to link to
/// bytes           verifierChallenge   exactly 32 bytes: SHA-256 of a secret the client keeps for `link`/`signIn`
/// ```
public struct EmailLinkStartRequest: WireMessage, Hashable {
    public var purpose: EmailLinkPurpose
    public var email: String
    public var accessToken: String?
    public var verifierChallenge: [UInt8]

    public init(purpose: EmailLinkPurpose, email: String, accessToken: String?, verifierChallenge: [UInt8]) {
        self.purpose = purpose
        self.email = email
        self.accessToken = accessToken
        self.verifierChallenge = verifierChallenge
    }

    public init(from buffer: inout ByteBuffer) throws(WireError) {
        purpose = try buffer.readEnum(EmailLinkPurpose.self, "emailLink.purpose")
        email = try buffer.readLengthPrefixedString("emailLink.email", maxBytes: IdentityLimits.emailByteCountMax)
        accessToken = try buffer.readOptional { (buffer) throws(WireError) in try buffer.readAccessToken() }
        verifierChallenge = try buffer.readLengthPrefixedBytes(
            "emailLink.verifierChallenge",
            maxBytes: IdentityLimits.verifierChallengeByteCount
        )
        guard verifierChallenge.count == IdentityLimits.verifierChallengeByteCount else {
            throw .invalidValue("emailLink.verifierChallenge")
        }
    }

    public func encode(into buffer: inout ByteBuffer) {
        buffer.writeInteger(purpose.rawValue)
        buffer.writeLengthPrefixedString(email)
        buffer.writeOptional(accessToken) { $0.writeLengthPrefixedString($1) }
        buffer.writeLengthPrefixedBytes(verifierChallenge)
    }
}

/// `link`:
/// ```
/// string     accessToken   <= 4096 bytes: the guest (or member) to link to
/// Credential credential
/// u8         onConflict    ConflictChoice: 0 merge, 1 discard, 2 fail
/// u8         mergePolicy   MergePolicy for colliding document keys: 0 keep-account, 1 keep-guest, 2 keep-newest, 3 keep-both
/// string     operationID   1–128 bytes
/// ```
public struct LinkRequest: WireMessage, Hashable {
    public var accessToken: String
    public var credential: Credential
    public var onConflict: ConflictChoice
    public var mergePolicy: MergePolicy
    public var operationID: String

    public init(
        accessToken: String,
        credential: Credential,
        onConflict: ConflictChoice,
        mergePolicy: MergePolicy,
        operationID: String
    ) {
        self.accessToken = accessToken
        self.credential = credential
        self.onConflict = onConflict
        self.mergePolicy = mergePolicy
        self.operationID = operationID
    }

    public init(from buffer: inout ByteBuffer) throws(WireError) {
        accessToken = try buffer.readAccessToken()
        credential = try Credential(from: &buffer)
        onConflict = try buffer.readEnum(ConflictChoice.self, "link.onConflict")
        mergePolicy = try buffer.readEnum(MergePolicy.self, "link.mergePolicy")
        operationID = try buffer.readOperationID()
    }

    public func encode(into buffer: inout ByteBuffer) {
        buffer.writeLengthPrefixedString(accessToken)
        credential.encode(into: &buffer)
        buffer.writeInteger(onConflict.rawValue)
        buffer.writeInteger(mergePolicy.rawValue)
        buffer.writeLengthPrefixedString(operationID)
    }
}

/// `resolveConflict`:
/// ```
/// string accessToken   <= 4096 bytes: the guest the conflict ticket was issued to
/// string ticket        <= 128 bytes: from the conflict's `ConflictDetails`
/// u8     choice        0 merge, 1 discard (2 fail is refused)
/// u8     mergePolicy   MergePolicy
/// string operationID   1–128 bytes
/// ```
public struct ResolveConflictRequest: WireMessage, Hashable {
    public var accessToken: String
    public var ticket: String
    public var choice: ConflictChoice
    public var mergePolicy: MergePolicy
    public var operationID: String

    public init(
        accessToken: String,
        ticket: String,
        choice: ConflictChoice,
        mergePolicy: MergePolicy,
        operationID: String
    ) {
        self.accessToken = accessToken
        self.ticket = ticket
        self.choice = choice
        self.mergePolicy = mergePolicy
        self.operationID = operationID
    }

    public init(from buffer: inout ByteBuffer) throws(WireError) {
        accessToken = try buffer.readAccessToken()
        ticket = try buffer.readLengthPrefixedString("resolve.ticket", maxBytes: IdentityLimits.secretTokenByteCountMax)
        choice = try buffer.readEnum(ConflictChoice.self, "resolve.choice")
        guard choice != .fail else { throw .invalidValue("resolve.choice") }
        mergePolicy = try buffer.readEnum(MergePolicy.self, "resolve.mergePolicy")
        operationID = try buffer.readOperationID()
    }

    public func encode(into buffer: inout ByteBuffer) {
        buffer.writeLengthPrefixedString(accessToken)
        buffer.writeLengthPrefixedString(ticket)
        buffer.writeInteger(choice.rawValue)
        buffer.writeInteger(mergePolicy.rawValue)
        buffer.writeLengthPrefixedString(operationID)
    }
}

extension ByteBuffer {
    mutating func readAccessToken() throws(WireError) -> String {
        try readLengthPrefixedString("accessToken", maxBytes: IdentityLimits.accessTokenByteCountMax)
    }

    mutating func readOperationID() throws(WireError) -> String {
        let value = try readLengthPrefixedString("operationID", maxBytes: GatewayLimits.operationIDByteCountMax)
        guard !value.isEmpty else { throw .invalidValue("operationID") }
        return value
    }
}
