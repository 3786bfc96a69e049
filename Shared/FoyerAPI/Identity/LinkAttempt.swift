public import FoyerWire
public import NIOCore

/// The answer of `linkPassword`, `linkProvider` and `completeEmailLink`: a session, or the account that already
/// holds the credential.
///
/// ```
/// u8 kind          0 = session, 1 = conflict
/// kind 0: SessionTokens   the caller's new session (linked), or the account's (an email link that signs in)
/// kind 1: ConflictDetails the account holding the credential and a ticket that signs in to it
/// ```
///
/// A conflict is an answer only when the caller proved the credential (the right password, a valid ID token, a
/// redeemed email link); a credential that was not proven is refused with `email-already-in-use` and no details.
public enum LinkAttempt: WireMessage, Hashable {
    case session(SessionTokens)
    case conflict(ConflictDetails)

    /// The session, unless the answer is a conflict.
    public var session: SessionTokens? {
        if case .session(let tokens) = self { tokens } else { nil }
    }

    /// The conflict, unless the answer is a session.
    public var conflict: ConflictDetails? {
        if case .conflict(let details) = self { details } else { nil }
    }

    public init(from buffer: inout ByteBuffer) throws(WireError) {
        switch try buffer.readWire(UInt8.self) {
        case 0: self = .session(try SessionTokens(from: &buffer))
        case 1: self = .conflict(try ConflictDetails(from: &buffer))
        default: throw .invalidValue("linkAttempt.kind")
        }
    }

    public func encode(into buffer: inout ByteBuffer) {
        switch self {
        case .session(let tokens):
            buffer.writeInteger(UInt8(0))
            tokens.encode(into: &buffer)
        case .conflict(let details):
            buffer.writeInteger(UInt8(1))
            details.encode(into: &buffer)
        }
    }
}
