/// The method-id and status ranges each service owns (docs/PROTOCOL.md, "Method ids").
///
/// A service's methods are `RPCMethod` constants in this module, declared in the file of that service's
/// contract, with ids inside its range; its own statuses are `RPCStatus` values in the same range of the low
/// 12 bits (`0x3100`–`0x31FF` for a rejection by identity, for instance).
public enum ServiceRange: UInt16, CaseIterable, Sendable {
    /// `health`, `echo`: answered by every server.
    case runtime = 0x00
    case identity = 0x01
    case guestQuota = 0x02
    case userData = 0x03
    case cleanup = 0x04
    case gateway = 0x05

    /// The lowest method id of the range.
    public var firstMethodID: UInt16 { rawValue == 0 ? 0x0001 : rawValue << 8 }
    /// The highest method id of the range.
    public var lastMethodID: UInt16 { rawValue << 8 | 0xFF }

    public func contains(methodID: UInt16) -> Bool { (firstMethodID...lastMethodID).contains(methodID) }
}
