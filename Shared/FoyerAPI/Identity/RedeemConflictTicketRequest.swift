public import FoyerWire
public import NIOCore

/// `redeemConflictTicket` request.
///
/// ```
/// string uid      <= 64 bytes: the user the ticket was issued to (the one whose link met the conflict)
/// string ticket   <= 128 bytes
/// ```
public struct RedeemConflictTicketRequest: WireMessage, Hashable {
    public var uid: String
    public var ticket: String

    public init(uid: String, ticket: String) {
        self.uid = uid
        self.ticket = ticket
    }

    public init(from buffer: inout ByteBuffer) throws(WireError) {
        uid = try buffer.readLengthPrefixedString("ticket.uid", maxBytes: IdentityLimits.uidByteCountMax)
        ticket = try buffer.readLengthPrefixedString("ticket.ticket", maxBytes: IdentityLimits.secretTokenByteCountMax)
    }

    public func encode(into buffer: inout ByteBuffer) {
        buffer.writeLengthPrefixedString(uid)
        buffer.writeLengthPrefixedString(ticket)
    }
}
