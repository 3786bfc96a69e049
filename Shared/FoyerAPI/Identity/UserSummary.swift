public import FoyerWire
public import NIOCore

/// A user in a listing (an element of ``UserSummaries``).
///
/// ```
/// string       uid                          <= 64 bytes
/// bool         isAnonymous
/// AccountState state                        see AccountState
/// u64          createdAtMilliseconds
/// u64          lastActivityAtMilliseconds
/// ```
public struct UserSummary: WireMessage, Hashable {
    public var uid: String
    public var isAnonymous: Bool
    public var state: AccountState
    public var createdAtMilliseconds: UInt64
    public var lastActivityAtMilliseconds: UInt64

    public init(
        uid: String,
        isAnonymous: Bool,
        state: AccountState,
        createdAtMilliseconds: UInt64,
        lastActivityAtMilliseconds: UInt64
    ) {
        self.uid = uid
        self.isAnonymous = isAnonymous
        self.state = state
        self.createdAtMilliseconds = createdAtMilliseconds
        self.lastActivityAtMilliseconds = lastActivityAtMilliseconds
    }

    public init(from buffer: inout ByteBuffer) throws(WireError) {
        uid = try buffer.readLengthPrefixedString("summary.uid", maxBytes: IdentityLimits.uidByteCountMax)
        isAnonymous = try buffer.readBool()
        state = try AccountState(from: &buffer)
        createdAtMilliseconds = try buffer.readWire()
        lastActivityAtMilliseconds = try buffer.readWire()
    }

    public func encode(into buffer: inout ByteBuffer) {
        buffer.writeLengthPrefixedString(uid)
        buffer.writeBool(isAnonymous)
        state.encode(into: &buffer)
        buffer.writeInteger(createdAtMilliseconds)
        buffer.writeInteger(lastActivityAtMilliseconds)
    }
}
