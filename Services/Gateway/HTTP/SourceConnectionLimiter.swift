import FoyerRPC
import NIOCore
import Synchronization

/// Counts the HTTP listener's open connections, in all and per source (an IPv4 address or an IPv6 /64; a trusted
/// proxy's connections count only in all, and against the client a PROXY header on them names), and per IPv6 /48
/// (all its /64s together), and refuses those over a limit: they are closed at once.
final class SourceConnectionLimiter: Sendable {
    private struct Counts {
        var total = 0
        var bySource: [String: Int] = [:]
        var byNetwork: [String: Int] = [:]

        /// Whether `source` (and its /48) can take one more connection.
        func hasRoom(_ source: String, perSource: Int, perNetwork: Int) -> Bool {
            guard bySource[source, default: 0] < perSource else { return false }
            guard let network = SourceConnectionLimiter.network(ofSource: source) else { return true }
            return byNetwork[network, default: 0] < perNetwork
        }

        mutating func add(_ source: String) {
            bySource[source, default: 0] += 1
            if let network = SourceConnectionLimiter.network(ofSource: source) { byNetwork[network, default: 0] += 1 }
        }
    }

    private let counts = Mutex(Counts())
    let connectionsMax: Int
    let connectionsPerSourceMax: Int
    let connectionsPerNetworkMax: Int
    let trustedProxies: TrustedProxies

    init(
        connectionsMax: Int,
        connectionsPerSourceMax: Int,
        connectionsPerNetworkMax: Int = .max,
        trustedProxies: TrustedProxies
    ) {
        self.connectionsMax = connectionsMax
        self.connectionsPerSourceMax = connectionsPerSourceMax
        self.connectionsPerNetworkMax = connectionsPerNetworkMax
        self.trustedProxies = trustedProxies
    }

    /// Admits a connection from `peer`; returns the key to release it with, or nil when it is refused.
    func admit(_ peer: SocketAddress?) -> String?? {
        let source = trustedProxies.contains(peer) ? nil : Self.source(of: peer)
        return counts.withLock { counts -> String?? in
            guard counts.total < connectionsMax else { return .none }
            if let source {
                guard counts.hasRoom(source, perSource: connectionsPerSourceMax, perNetwork: connectionsPerNetworkMax)
                else { return .none }
                counts.add(source)
            }
            counts.total += 1
            return .some(source)
        }
    }

    /// Counts a connection from a trusted proxy, already admitted in all, against the client its PROXY header names;
    /// returns the key to give the place back with (`releaseBehindProxy`), or nil when that source is at its cap.
    /// A client that is itself a trusted proxy, or has no IP address, is not counted (`.some(nil)`).
    func admitBehindProxy(_ client: SocketAddress) -> String?? {
        guard !trustedProxies.contains(client), let source = Self.source(of: client) else { return .some(nil) }
        return counts.withLock { counts -> String?? in
            guard counts.hasRoom(source, perSource: connectionsPerSourceMax, perNetwork: connectionsPerNetworkMax)
            else { return .none }
            counts.add(source)
            return .some(source)
        }
    }

    /// The source a connection counts against, as on the binary listener: an IPv4 address (IPv4-mapped IPv6
    /// included), an IPv6 address's /64; nil for anything else (a Unix socket).
    static func source(of address: SocketAddress?) -> String? {
        switch address {
        case .v4:
            return address?.ipAddress
        case .v6(let v6):
            let bytes = withUnsafeBytes(of: v6.address.sin6_addr) { Array($0) }
            if bytes[0..<10].allSatisfy({ $0 == 0 }) && bytes[10] == 0xFF && bytes[11] == 0xFF {
                return bytes[12..<16].map(String.init).joined(separator: ".")
            }
            return bytes[0..<8].map { String($0, radix: 16) }.joined(separator: ":") + "::/64"
        default:
            return nil
        }
    }

    /// The /48 an IPv6 source key (`source(of:)`, ending in `::/64`) belongs to; nil for an IPv4 source.
    static func network(ofSource source: String) -> String? {
        guard source.hasSuffix("::/64") else { return nil }
        return source.split(separator: ":").prefix(6).joined(separator: ":") + "::/48"
    }

    func release(_ source: String?) {
        counts.withLock { counts in
            counts.total -= 1
            if let source { Self.release(source, in: &counts) }
        }
    }

    /// Gives back the per-source place `admitBehindProxy` took (the connection's place in all is `release`'s).
    func releaseBehindProxy(_ source: String?) {
        guard let source else { return }
        counts.withLock { Self.release(source, in: &$0) }
    }

    private static func release(_ source: String, in counts: inout Counts) {
        let left = counts.bySource[source, default: 1] - 1
        counts.bySource[source] = left > 0 ? left : nil
        if let network = network(ofSource: source) {
            let left = counts.byNetwork[network, default: 1] - 1
            counts.byNetwork[network] = left > 0 ? left : nil
        }
    }
}

/// The channel handler that asks the limiter when a connection opens and gives its place back when it closes.
final class SourceConnectionGuard: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = NIOAny

    private let limiter: SourceConnectionLimiter
    /// The admitted connection's source key (`.some(nil)`: admitted, counted in the total only).
    private var admitted: String??

    init(limiter: SourceConnectionLimiter) { self.limiter = limiter }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { admit(context) }
    }

    func channelActive(context: ChannelHandlerContext) {
        if admitted == nil { admit(context) }
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        release()
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) { release() }

    private func admit(_ context: ChannelHandlerContext) {
        guard admitted == nil else { return }
        if let source = limiter.admit(context.channel.remoteAddress) {
            admitted = .some(source)
        } else {
            context.close(promise: nil)
        }
    }

    private func release() {
        guard let source = admitted else { return }
        admitted = nil
        limiter.release(source)
    }
}
