public import FoyerWire
public import NIOCore

/// `getUser` response: what identity knows about a user, without secrets.
///
/// ```
/// string uid                           <= 64 bytes
/// bool   isAnonymous
/// AccountState state                   see AccountState
/// u64    createdAtMilliseconds
/// u64    lastActivityAtMilliseconds
/// bool   hasEmail, string email        <= 320 bytes: the email credential (password and/or email link)
/// bool   emailVerified                 proven by an email link
/// bool   hasPassword
/// list of LinkedIdentity providers     <= 16
/// ```
public struct UserInfo: WireMessage, Hashable {
    public var uid: String
    public var isAnonymous: Bool
    public var state: AccountState
    public var createdAtMilliseconds: UInt64
    public var lastActivityAtMilliseconds: UInt64
    public var email: String?
    public var emailVerified: Bool
    public var hasPassword: Bool
    public var providers: [LinkedIdentity]

    public init(
        uid: String,
        isAnonymous: Bool,
        state: AccountState,
        createdAtMilliseconds: UInt64,
        lastActivityAtMilliseconds: UInt64,
        email: String?,
        emailVerified: Bool,
        hasPassword: Bool,
        providers: [LinkedIdentity]
    ) {
        self.uid = uid
        self.isAnonymous = isAnonymous
        self.state = state
        self.createdAtMilliseconds = createdAtMilliseconds
        self.lastActivityAtMilliseconds = lastActivityAtMilliseconds
        self.email = email
        self.emailVerified = emailVerified
        self.hasPassword = hasPassword
        self.providers = providers
    }

    public init(from buffer: inout ByteBuffer) throws(WireError) {
        uid = try buffer.readLengthPrefixedString("user.uid", maxBytes: IdentityLimits.uidByteCountMax)
        isAnonymous = try buffer.readBool()
        state = try AccountState(from: &buffer)
        createdAtMilliseconds = try buffer.readWire()
        lastActivityAtMilliseconds = try buffer.readWire()
        email = try buffer.readOptional { (buffer) throws(WireError) in
            try buffer.readLengthPrefixedString("user.email", maxBytes: IdentityLimits.emailByteCountMax)
        }
        emailVerified = try buffer.readBool()
        hasPassword = try buffer.readBool()
        let count = try buffer.readCount(
            "user.providers",
            maxCount: IdentityLimits.providersCountMax,
            minElementBytes: 4
        )
        var providers: [LinkedIdentity] = []
        providers.reserveCapacity(count)
        for _ in 0..<count { providers.append(try LinkedIdentity(from: &buffer)) }
        self.providers = providers
    }

    public func encode(into buffer: inout ByteBuffer) {
        buffer.writeLengthPrefixedString(uid)
        buffer.writeBool(isAnonymous)
        state.encode(into: &buffer)
        buffer.writeInteger(createdAtMilliseconds)
        buffer.writeInteger(lastActivityAtMilliseconds)
        buffer.writeOptional(email) { $0.writeLengthPrefixedString($1) }
        buffer.writeBool(emailVerified)
        buffer.writeBool(hasPassword)
        buffer.writeVarint(UInt64(providers.count))
        for provider in providers { provider.encode(into: &buffer) }
    }
}
