public import FoyerWire
public import NIOCore

/// `signOut`: `bool accountDeleted` — true for a guest, whose sign-out deletes it with everything.
public struct SignOutResponse: WireMessage, Hashable {
    public var accountDeleted: Bool

    public init(accountDeleted: Bool) { self.accountDeleted = accountDeleted }

    public init(from buffer: inout ByteBuffer) throws(WireError) { accountDeleted = try buffer.readBool() }

    public func encode(into buffer: inout ByteBuffer) { buffer.writeBool(accountDeleted) }
}
