#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Who the per-source limits count a request against: the client's address as the gateway passed it.
///
/// An IPv4 address counts as itself; an IPv6 address by its /48 network (one site commonly holds a whole /48, so
/// counting single IPv6 addresses, or its 65,536 /64s, would let one client rotate freely: docs/DECISIONS.md); an
/// IPv4-mapped IPv6 address (`::ffff:203.0.113.7`) as the IPv4 address. Text that is no address (the gateway's `unknown`) is one source of
/// its own. An empty source is an internal caller (a service holding the cluster secret, not a client): the
/// per-source limits do not apply to it; the global and per-address ones do.
enum ClientSource: Hashable, Sendable {
    /// An internal caller: no client address.
    case `internal`
    /// A client, by its key: `4:203.0.113.7`, `6:20010db80001` (the first 48 bits in hex) or `?:<text>`.
    case client(key: String)

    init(_ text: String) {
        guard !text.isEmpty else {
            self = .internal
            return
        }
        self = .client(key: Self.key(text))
    }

    /// The key of a client, or nil for an internal caller.
    var key: String? {
        switch self {
        case .internal: nil
        case .client(let key): key
        }
    }

    private static func key(_ text: String) -> String {
        guard text.utf8.count <= 64, !text.utf8.contains(0) else { return "?:" + text }
        var v4 = [UInt8](repeating: 0, count: 4)
        if v4.withUnsafeMutableBytes({ inet_pton(AF_INET, text, $0.baseAddress) }) == 1 {
            return "4:" + v4.map(String.init).joined(separator: ".")
        }
        var v6 = [UInt8](repeating: 0, count: 16)
        guard v6.withUnsafeMutableBytes({ inet_pton(AF_INET6, text, $0.baseAddress) }) == 1 else { return "?:" + text }
        if v6[0..<10].allSatisfy({ $0 == 0 }) && v6[10] == 0xFF && v6[11] == 0xFF {
            return "4:" + v6[12..<16].map(String.init).joined(separator: ".")
        }
        return "6:"
            + v6[0..<6].map { byte in
                let hex = String(byte, radix: 16)
                return hex.count == 1 ? "0" + hex : hex
            }.joined()
    }
}
