public import FoyerWire
public import NIOCore

/// `listStuckAccounts` response: users in `merging` or `deleting`, the longest-stuck first.
///
/// ```
/// list of AccountState accounts   <= 1000
/// ```
public struct StuckAccounts: WireMessage, Hashable {
    public var accounts: [AccountState]

    public init(accounts: [AccountState]) {
        self.accounts = accounts
    }

    public init(from buffer: inout ByteBuffer) throws(WireError) {
        let count = try buffer.readCount("stuck.accounts", maxCount: IdentityLimits.listCountMax, minElementBytes: 5)
        var accounts: [AccountState] = []
        accounts.reserveCapacity(count)
        for _ in 0..<count { accounts.append(try AccountState(from: &buffer)) }
        self.accounts = accounts
    }

    public func encode(into buffer: inout ByteBuffer) {
        buffer.writeVarint(UInt64(accounts.count))
        for account in accounts { account.encode(into: &buffer) }
    }
}
