import Foundation
import FoyerRPC
import NIOCore

/// The client's address for a request: the socket's peer, or, when that peer is a trusted proxy, the address
/// the proxy names in `Forwarded` (its last `for=`) or else `X-Forwarded-For` (its last entry). Headers from
/// any other peer are ignored, so a client cannot choose the address its limits count against.
enum ClientAddress {
    static func resolve(
        peer: SocketAddress?,
        forwarded: String?,
        xForwardedFor: String?,
        trustedProxies: TrustedProxies
    ) -> SocketAddress? {
        guard trustedProxies.contains(peer) else { return peer }
        if let forwarded, let address = lastForwardedFor(forwarded) { return address }
        if let xForwardedFor, let last = xForwardedFor.split(separator: ",").last,
            let address = parse(last.trimmingCharacters(in: .whitespaces))
        {
            return address
        }
        return peer
    }

    /// The last `for=` of a `Forwarded` header (RFC 7239): `for=192.0.2.60`, `for="[2001:db8::1]:4711"`.
    static func lastForwardedFor(_ header: String) -> SocketAddress? {
        let pairs = header.split(whereSeparator: { $0 == "," || $0 == ";" })
        for pair in pairs.reversed() {
            let trimmed = pair.trimmingCharacters(in: .whitespaces)
            guard trimmed.lowercased().hasPrefix("for=") else { continue }
            return parse(String(trimmed.dropFirst(4)).trimmingCharacters(in: CharacterSet(charactersIn: "\"")))
        }
        return nil
    }

    /// An IP address, optionally with a port (`192.0.2.1:80`, `[2001:db8::1]:443`, `2001:db8::1`).
    static func parse(_ text: String) -> SocketAddress? {
        var host = text
        if host.hasPrefix("["), let end = host.firstIndex(of: "]") {
            host = String(host[host.index(after: host.startIndex)..<end])
        } else if host.filter({ $0 == ":" }).count == 1, let colon = host.firstIndex(of: ":") {
            host = String(host[..<colon])
        }
        return try? SocketAddress(ipAddress: host, port: 0)
    }
}
