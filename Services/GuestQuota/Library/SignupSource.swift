#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The bucket a sign-up source counts against: an IPv4 address, or the /64 network of an IPv6 address (one
/// customer usually holds a whole /64, so counting single IPv6 addresses would let one client rotate freely).
/// IPv4-mapped IPv6 addresses (`::ffff:203.0.113.7`) count as the IPv4 address. An IPv6 source also counts against
/// the bucket of its /48 (`networkBucketKey`), since one site commonly holds a whole /48 and could otherwise rotate
/// through its 65,536 /64s.
struct SignupSource: Hashable, Sendable, CustomStringConvertible {
    /// `4:203.0.113.7` or `6:20010db800000001` (the first 64 bits in hex): the bucket's key in storage.
    let bucketKey: String
    /// `48:20010db80001` (the first 48 bits in hex) for an IPv6 source: the key of its /48's bucket; nil for IPv4.
    let networkBucketKey: String?

    /// Parses an address as text; `nil` for anything that is not an IPv4 or IPv6 address.
    init?(_ text: String) {
        guard !text.isEmpty, text.utf8.count <= 64, !text.utf8.contains(0) else { return nil }
        var v4 = [UInt8](repeating: 0, count: 4)
        if v4.withUnsafeMutableBytes({ inet_pton(AF_INET, text, $0.baseAddress) }) == 1 {
            bucketKey = "4:" + v4.map(String.init).joined(separator: ".")
            networkBucketKey = nil
            return
        }
        var v6 = [UInt8](repeating: 0, count: 16)
        guard v6.withUnsafeMutableBytes({ inet_pton(AF_INET6, text, $0.baseAddress) }) == 1 else { return nil }
        if v6[0..<10].allSatisfy({ $0 == 0 }) && v6[10] == 0xFF && v6[11] == 0xFF {
            bucketKey = "4:" + v6[12..<16].map(String.init).joined(separator: ".")
            networkBucketKey = nil
            return
        }
        let hex = v6.map { byte in
            let hex = String(byte, radix: 16)
            return hex.count == 1 ? "0" + hex : hex
        }
        bucketKey = "6:" + hex[0..<8].joined()
        networkBucketKey = "48:" + hex[0..<6].joined()
    }

    var description: String { bucketKey }
}
