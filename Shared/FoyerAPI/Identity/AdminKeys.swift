public import FoyerWire
public import NIOCore

/// `listAdminKeys` response: every admin key, revoked ones included, newest first.
///
/// ```
/// list of AdminKeyInfo keys   <= 1000
/// ```
public struct AdminKeys: WireMessage, Hashable {
    public var keys: [AdminKeyInfo]

    public init(keys: [AdminKeyInfo]) {
        self.keys = keys
    }

    public init(from buffer: inout ByteBuffer) throws(WireError) {
        let count = try buffer.readCount(
            "adminKeys.keys",
            maxCount: IdentityLimits.adminKeysCountMax,
            minElementBytes: 13
        )
        var keys: [AdminKeyInfo] = []
        keys.reserveCapacity(count)
        for _ in 0..<count { keys.append(try AdminKeyInfo(from: &buffer)) }
        self.keys = keys
    }

    public func encode(into buffer: inout ByteBuffer) {
        buffer.writeVarint(UInt64(keys.count))
        for key in keys { key.encode(into: &buffer) }
    }
}
