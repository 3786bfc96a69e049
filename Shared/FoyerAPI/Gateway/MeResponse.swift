public import FoyerWire
public import NIOCore

/// `me`: identity's `UserInfo` (uid, guest or member, email, providers…) and guest-quota's usage.
public struct MeResponse: WireMessage, Hashable {
    public var user: UserInfo
    public var usage: QuotaUsageResponse

    public init(user: UserInfo, usage: QuotaUsageResponse) {
        self.user = user
        self.usage = usage
    }

    public init(from buffer: inout ByteBuffer) throws(WireError) {
        user = try UserInfo(from: &buffer)
        usage = try QuotaUsageResponse(from: &buffer)
    }

    public func encode(into buffer: inout ByteBuffer) {
        user.encode(into: &buffer)
        usage.encode(into: &buffer)
    }
}
