public import FoyerWire
public import NIOCore

/// The `details` of `credential-already-in-use` and `email-already-in-use` when the caller proved the credential:
/// the account it belongs to, and a ticket that signs in to that account (`redeemConflictTicket`) without the
/// credential, which may not be presentable twice (an Apple ID token's nonce is spent on the first try).
///
/// ```
/// string otherUID                      <= 64 bytes: the account that holds the credential
/// string ticket                        <= 128 bytes: single use, bound to (the caller's user, otherUID)
/// u64    ticketExpiresAtMilliseconds   since the Unix epoch
/// ```
///
/// Decode it from `RPCError.details` (`ConflictDetails(decoding: error.details)`); empty details mean the
/// credential was not proven (a wrong password for an email in use), and then there is no ticket.
public struct ConflictDetails: WireMessage, Hashable {
    public var otherUID: String
    public var ticket: String
    public var ticketExpiresAtMilliseconds: UInt64

    public init(otherUID: String, ticket: String, ticketExpiresAtMilliseconds: UInt64) {
        self.otherUID = otherUID
        self.ticket = ticket
        self.ticketExpiresAtMilliseconds = ticketExpiresAtMilliseconds
    }

    public init(from buffer: inout ByteBuffer) throws(WireError) {
        otherUID = try buffer.readLengthPrefixedString("conflict.otherUID", maxBytes: IdentityLimits.uidByteCountMax)
        ticket = try buffer.readLengthPrefixedString(
            "conflict.ticket",
            maxBytes: IdentityLimits.secretTokenByteCountMax
        )
        ticketExpiresAtMilliseconds = try buffer.readWire()
    }

    public func encode(into buffer: inout ByteBuffer) {
        buffer.writeLengthPrefixedString(otherUID)
        buffer.writeLengthPrefixedString(ticket)
        buffer.writeInteger(ticketExpiresAtMilliseconds)
    }
}
