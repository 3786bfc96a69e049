public import FoyerWire
public import NIOCore

/// What a gateway operation that may end an account's sessions sends identity first: the caller's access token,
/// what the operation requires of it, the operation (scoped to the user by the gateway) and where the gateway keeps
/// the operation's answer. Shared by `link` and `deleteAccount`.
///
/// ```
/// string accessToken   <= 4096 bytes
/// u8     requirement   TokenRequirement: 0 any, 1 member, 2 guest, 3 guest or a member's recent sign-in
/// string operationID   1–128 bytes
/// bytes  answerID      32 bytes: the id of the operation's remembered answer (`rememberOperationAnswer`)
/// ```
public struct CallerOperation: Hashable, Sendable {
    public var accessToken: String
    public var requirement: TokenRequirement
    public var operationID: String
    public var answerID: [UInt8]

    public init(accessToken: String, requirement: TokenRequirement, operationID: String, answerID: [UInt8]) {
        self.accessToken = accessToken
        self.requirement = requirement
        self.operationID = operationID
        self.answerID = answerID
    }

    public init(from buffer: inout ByteBuffer) throws(WireError) {
        let token = try VerifyAccessTokenRequest(from: &buffer)
        accessToken = token.accessToken
        requirement = token.requirement
        operationID = try buffer.readLengthPrefixedString(
            "operation.operationID",
            maxBytes: IdentityLimits.operationIDByteCountMax
        )
        guard !operationID.isEmpty else { throw .invalidValue("operation.operationID") }
        answerID = try OperationAnswerLimits.readDigest(&buffer, "operation.answerID")
    }

    public func encode(into buffer: inout ByteBuffer) {
        VerifyAccessTokenRequest(accessToken: accessToken, requirement: requirement).encode(into: &buffer)
        buffer.writeLengthPrefixedString(operationID)
        buffer.writeLengthPrefixedBytes(answerID)
    }
}

/// `link` request: attach a credential to the caller, or, when it is another account's, answer the conflict or
/// begin the merge or discard the client chose, all in one call.
///
/// ```
/// CallerOperation operation
/// u8     proof         0 a credential, 1 a conflict ticket (`resolveConflict`)
///   0: Credential      the gateway's Credential
///   1: string ticket   <= 128 bytes
/// u8     onConflict    ConflictChoice: 0 merge, 1 discard, 2 fail (a ticket takes merge or discard only)
/// u8     mergePolicy   MergePolicy, kept with a merge for whoever finishes it
/// string source        <= 64 bytes: the client's address, which the per-source limits count against
/// ```
public struct LinkAccountRequest: WireMessage, Hashable {
    /// What proves the right to the account.
    public enum Proof: Hashable, Sendable {
        case credential(Credential)
        case ticket(String)
    }

    public var operation: CallerOperation
    public var proof: Proof
    public var onConflict: ConflictChoice
    public var mergePolicy: MergePolicy
    public var source: String

    public init(
        operation: CallerOperation,
        proof: Proof,
        onConflict: ConflictChoice,
        mergePolicy: MergePolicy,
        source: String
    ) {
        self.operation = operation
        self.proof = proof
        self.onConflict = onConflict
        self.mergePolicy = mergePolicy
        self.source = source
    }

    public init(from buffer: inout ByteBuffer) throws(WireError) {
        operation = try CallerOperation(from: &buffer)
        switch try buffer.readWire(UInt8.self) {
        case 0: proof = .credential(try Credential(from: &buffer))
        case 1:
            proof = .ticket(
                try buffer.readLengthPrefixedString("link.ticket", maxBytes: IdentityLimits.secretTokenByteCountMax)
            )
        default: throw .invalidValue("link.proof")
        }
        onConflict = try buffer.readEnum(ConflictChoice.self, "link.onConflict")
        mergePolicy = try buffer.readEnum(MergePolicy.self, "link.mergePolicy")
        source = try buffer.readLengthPrefixedString("link.source", maxBytes: IdentityLimits.sourceByteCountMax)
    }

    public func encode(into buffer: inout ByteBuffer) {
        operation.encode(into: &buffer)
        switch proof {
        case .credential(let credential):
            buffer.writeInteger(UInt8(0))
            credential.encode(into: &buffer)
        case .ticket(let ticket):
            buffer.writeInteger(UInt8(1))
            buffer.writeLengthPrefixedString(ticket)
        }
        buffer.writeInteger(onConflict.rawValue)
        buffer.writeInteger(mergePolicy.rawValue)
        buffer.writeLengthPrefixedString(source)
    }
}

/// `link` answer.
///
/// ```
/// u8 kind
/// 0 linked:     SessionTokens (the caller's, now a member), bool wasGuest
/// 1 conflict:   ConflictDetails (onConflict fail: nothing changed)
/// 2 begun:      SessionTokens (the account's), AccountState (the guest, now merging or deleting)
/// 3 continuing: AccountState: an earlier attempt under this operation began it (the token is refused as revoked
///               by that step, and accepted for this only)
/// 4 finished:   an earlier attempt under this operation finished it; the guest is gone
/// 5 recalled:   bytes check (32), bytes sealed (1–65,536): the answer remembered under `answerID`
/// ```
public enum LinkStep: WireMessage, Hashable {
    case linked(SessionTokens, wasGuest: Bool)
    case conflict(ConflictDetails)
    case begun(account: SessionTokens, guest: AccountState)
    case continuing(AccountState)
    case finished
    case recalled(RememberedAnswer)

    public init(from buffer: inout ByteBuffer) throws(WireError) {
        switch try buffer.readWire(UInt8.self) {
        case 0: self = .linked(try SessionTokens(from: &buffer), wasGuest: try buffer.readBool())
        case 1: self = .conflict(try ConflictDetails(from: &buffer))
        case 2: self = .begun(account: try SessionTokens(from: &buffer), guest: try AccountState(from: &buffer))
        case 3: self = .continuing(try AccountState(from: &buffer))
        case 4: self = .finished
        case 5: self = .recalled(try RememberedAnswer(from: &buffer))
        default: throw .invalidValue("linkStep.kind")
        }
    }

    public func encode(into buffer: inout ByteBuffer) {
        switch self {
        case .linked(let tokens, let wasGuest):
            buffer.writeInteger(UInt8(0))
            tokens.encode(into: &buffer)
            buffer.writeBool(wasGuest)
        case .conflict(let details):
            buffer.writeInteger(UInt8(1))
            details.encode(into: &buffer)
        case .begun(let account, let guest):
            buffer.writeInteger(UInt8(2))
            account.encode(into: &buffer)
            guest.encode(into: &buffer)
        case .continuing(let state):
            buffer.writeInteger(UInt8(3))
            state.encode(into: &buffer)
        case .finished:
            buffer.writeInteger(UInt8(4))
        case .recalled(let found):
            buffer.writeInteger(UInt8(5))
            found.encode(into: &buffer)
        }
    }
}

/// `deleteAccount` request: delete-everything, or a sign-out (`guestOnly`: a guest is deleted, a member's session
/// ends), begun in one call.
///
/// ```
/// CallerOperation operation
/// bool   guestOnly     a sign-out: only a guest is deleted; a member's session is revoked instead
/// ```
public struct DeleteAccountRequest: WireMessage, Hashable {
    public var operation: CallerOperation
    public var guestOnly: Bool

    public init(operation: CallerOperation, guestOnly: Bool) {
        self.operation = operation
        self.guestOnly = guestOnly
    }

    public init(from buffer: inout ByteBuffer) throws(WireError) {
        operation = try CallerOperation(from: &buffer)
        guestOnly = try buffer.readBool()
    }

    public func encode(into buffer: inout ByteBuffer) {
        operation.encode(into: &buffer)
        buffer.writeBool(guestOnly)
    }
}

/// `deleteAccount` answer.
///
/// ```
/// u8 kind
/// 0 begun:      AccountState (deleting under the operation; every session revoked)
/// 1 continuing: AccountState: an earlier attempt under this operation began it
/// 2 finished:   an earlier attempt under this operation finished it; the user is gone
/// 3 recalled:   bytes check (32), bytes sealed (1–65,536): the answer remembered under `answerID`
/// 4 signedOut:  guestOnly and the caller is a member: its session was revoked, nothing deleted
/// ```
public enum DeletionStep: WireMessage, Hashable {
    case begun(AccountState)
    case continuing(AccountState)
    case finished
    case recalled(RememberedAnswer)
    case signedOut

    public init(from buffer: inout ByteBuffer) throws(WireError) {
        switch try buffer.readWire(UInt8.self) {
        case 0: self = .begun(try AccountState(from: &buffer))
        case 1: self = .continuing(try AccountState(from: &buffer))
        case 2: self = .finished
        case 3: self = .recalled(try RememberedAnswer(from: &buffer))
        case 4: self = .signedOut
        default: throw .invalidValue("deletionStep.kind")
        }
    }

    public func encode(into buffer: inout ByteBuffer) {
        switch self {
        case .begun(let state):
            buffer.writeInteger(UInt8(0))
            state.encode(into: &buffer)
        case .continuing(let state):
            buffer.writeInteger(UInt8(1))
            state.encode(into: &buffer)
        case .finished:
            buffer.writeInteger(UInt8(2))
        case .recalled(let found):
            buffer.writeInteger(UInt8(3))
            found.encode(into: &buffer)
        case .signedOut:
            buffer.writeInteger(UInt8(4))
        }
    }
}
