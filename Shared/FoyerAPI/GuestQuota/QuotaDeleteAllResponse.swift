public import FoyerWire
public import NIOCore

/// What `deleteAll` found.
///
/// ```
/// bool  existed   false when there was no account (already deleted, merged, or never opened)
/// bool  wasGuest  the account was on the guest plan, so the live-guest count went down by one
/// ```
public struct QuotaDeleteAllResponse: WireMessage, Hashable {
    public var existed: Bool
    public var wasGuest: Bool

    public init(existed: Bool, wasGuest: Bool) {
        self.existed = existed
        self.wasGuest = wasGuest
    }

    public init(from buffer: inout ByteBuffer) throws(WireError) {
        existed = try buffer.readBool()
        wasGuest = try buffer.readBool()
    }

    public func encode(into buffer: inout ByteBuffer) {
        buffer.writeBool(existed)
        buffer.writeBool(wasGuest)
    }
}
