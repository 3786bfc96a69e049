public import NIOCore

#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The connections a server holds, counted when they are accepted (before the handshake): in all, and per source,
/// so one host cannot take every connection. Without I/O; `RPCServer` keeps one under a lock.
///
/// A source is an IPv4 address, or an IPv6 /64 (one subscriber's usual allocation: a host can pick any address in
/// its /64, so counting single IPv6 addresses would limit nothing). An IPv6 source's connections also count against
/// its /48 (`maxConnectionsPerNetwork`), since one site commonly holds a /48 and could otherwise spread over its
/// /64s. A connection whose source is not known yet (from a trusted proxy, before its PROXY header) counts only in
/// the total until `move(_:to:)` names it.
///
/// When the server is full, a newcomer from a known source whose own count is at least two below the heaviest
/// source's takes the place of that source's oldest connection, which the caller closes: a few hosts holding every
/// connection cannot keep everyone else out. The oldest rather than the idlest, so that no per-frame bookkeeping is
/// needed; a host that opened the most connections first loses them first.
public struct ConnectionAdmission: Sendable {
    /// Why a connection was refused.
    public enum Refusal: Error, Equatable, Sendable {
        /// The server holds `maxConnections` connections.
        case serverFull
        /// The source holds `maxConnectionsPerSource` connections, or its IPv6 /48 `maxConnectionsPerNetwork` (the
        /// network named is the one that is full).
        case sourceFull(IPNetwork)
    }

    /// An admitted connection, to hand back on `release`.
    public struct Ticket: Hashable, Sendable, Comparable {
        fileprivate let number: UInt64

        public static func < (lhs: Ticket, rhs: Ticket) -> Bool { lhs.number < rhs.number }
    }

    /// A connection admitted, and the one it displaced (already released here; the caller closes it), if any.
    public struct Admission: Equatable, Sendable {
        public let ticket: Ticket
        public let evicted: Ticket?
    }

    let maxConnections: Int
    let maxConnectionsPerSource: Int
    let maxConnectionsPerNetwork: Int
    private var sources: [Ticket: IPNetwork] = [:]
    private var admitted: Set<Ticket> = []
    private(set) var perSource: [IPNetwork: Int] = [:]
    /// Connections per IPv6 /48 (IPv4 sources are not in it).
    private(set) var perNetwork: [IPNetwork: Int] = [:]
    private var nextTicket: UInt64 = 0

    public init(maxConnections: Int, maxConnectionsPerSource: Int, maxConnectionsPerNetwork: Int = .max) {
        self.maxConnections = maxConnections
        self.maxConnectionsPerSource = maxConnectionsPerSource
        self.maxConnectionsPerNetwork = maxConnectionsPerNetwork
    }

    /// Why `source` cannot take one more connection, or nil if it can.
    private func fullness(of source: IPNetwork) -> Refusal? {
        if perSource[source, default: 0] >= maxConnectionsPerSource { return .sourceFull(source) }
        if let network = source.network48, perNetwork[network, default: 0] >= maxConnectionsPerNetwork {
            return .sourceFull(network)
        }
        return nil
    }

    private mutating func increment(_ source: IPNetwork) {
        perSource[source, default: 0] += 1
        if let network = source.network48 { perNetwork[network, default: 0] += 1 }
    }

    /// Connections held, in all.
    public var count: Int { admitted.count }

    /// Admits a connection from `source` (`nil`: not known yet, or not an IP address), evicting another when the
    /// server is full and the heaviest source holds at least two more than `source`; or says why not.
    mutating func admit(source: IPNetwork?) -> Result<Admission, Refusal> {
        if let source, let refusal = fullness(of: source) { return .failure(refusal) }
        var evicted: Ticket?
        if admitted.count >= maxConnections {
            guard let source, let victim = victim(for: source) else { return .failure(.serverFull) }
            release(victim)
            evicted = victim
        }
        nextTicket &+= 1
        let ticket = Ticket(number: nextTicket)
        admitted.insert(ticket)
        if let source {
            sources[ticket] = source
            increment(source)
        }
        return .success(Admission(ticket: ticket, evicted: evicted))
    }

    /// The oldest connection of the source holding the most, if it holds at least two more than `newcomer`.
    private func victim(for newcomer: IPNetwork) -> Ticket? {
        guard let (heaviest, held) = perSource.max(by: { $0.value < $1.value }),
            held >= perSource[newcomer, default: 0] + 2
        else { return nil }
        return sources.filter { $0.value == heaviest }.keys.min()
    }

    /// Counts an admitted connection against `source` from now on (the client a PROXY header names). `false`, and
    /// nothing changed, if that source is full: the caller closes the connection and releases its ticket.
    public mutating func move(_ ticket: Ticket, to source: IPNetwork) -> Bool {
        guard admitted.contains(ticket) else { return false }
        let current = sources[ticket]
        if current == source { return true }
        guard fullness(of: source) == nil else { return false }
        if let current { decrement(current) }
        sources[ticket] = source
        increment(source)
        return true
    }

    /// The connection has closed: its place is free again. Releasing twice does nothing.
    public mutating func release(_ ticket: Ticket) {
        guard admitted.remove(ticket) != nil else { return }
        if let source = sources.removeValue(forKey: ticket) { decrement(source) }
    }

    private mutating func decrement(_ source: IPNetwork) {
        let left = perSource[source, default: 1] - 1
        perSource[source] = left > 0 ? left : nil
        if let network = source.network48 {
            let left = perNetwork[network, default: 1] - 1
            perNetwork[network] = left > 0 ? left : nil
        }
    }
}

extension IPNetwork {
    /// The /48 around an IPv6 network of 48 bits or more; nil for IPv4.
    var network48: IPNetwork? {
        bytes.count == 16 && prefixLength >= 48 ? IPNetwork(bytes: bytes, prefixLength: 48) : nil
    }

    /// The source a connection from `address` counts against: an IPv4 address (IPv4-mapped IPv6 included) as a
    /// /32, an IPv6 address as its /64; `nil` for anything else (a Unix socket).
    public static func connectionSource(of address: SocketAddress?) -> IPNetwork? {
        switch address {
        case .v4(let v4):
            let bytes = withUnsafeBytes(of: v4.address.sin_addr) { Array($0) }
            return IPNetwork(bytes: bytes, prefixLength: 32)
        case .v6(let v6):
            let bytes = withUnsafeBytes(of: v6.address.sin6_addr) { Array($0) }
            if bytes[0..<10].allSatisfy({ $0 == 0 }) && bytes[10] == 0xFF && bytes[11] == 0xFF {
                return IPNetwork(bytes: Array(bytes[12..<16]), prefixLength: 32)
            }
            return IPNetwork(bytes: bytes, prefixLength: 64)
        default:
            return nil
        }
    }
}
