public import NIOCore
import NIOPosix
import Synchronization

/// A frame-aware TCP proxy for fault tests: it listens on a loopback port, relays each connection to one upstream
/// service, and on the way delays, duplicates and reorders request frames and drops answer frames, as its
/// ``FaultProxyConfiguration`` says, from a seeded generator. It counts what it did (``counts``), and
/// ``setFaultsEnabled(_:)`` turns it into a plain relay at run time.
///
/// The connection's preface and handshake frames pass untouched; after them the byte stream is cut into frames by
/// their length field (docs/PROTOCOL.md, section 3). A duplicate goes out under an id of the proxy's own (top bit
/// set; a client counting up from 1 does not reach it in a test), since a second `REQUEST` with an id in flight is a
/// protocol error: the service runs the call twice, and the proxy swallows the duplicate's answer. Plaintext only.
///
/// ```swift
/// let proxy = try await FaultProxy.start(configuration: FaultProxyConfiguration(seed: 42))
/// // point the gateway at 127.0.0.1:proxy.port, start the service, then:
/// proxy.setUpstream(port: servicePort)    // connections accepted before this wait for it
/// ...
/// proxy.setFaultsEnabled(false)
/// try await proxy.shutdown()
/// ```
public final class FaultProxy: Sendable {
    /// The loopback port the proxy listens on.
    public let port: Int
    public let configuration: FaultProxyConfiguration
    private let channel: any Channel
    private let upstream: EventLoopPromise<SocketAddress>
    private let state: Mutex<State>

    private struct State {
        var random: SplitMix64
        var faultsEnabled = true
        var counts = FaultProxyCounts()
        var upstreamSet = false
        /// The gateway side of each relayed connection, closed by ``shutdown()``.
        var connections: [ObjectIdentifier: any Channel] = [:]
    }

    private init(
        port: Int,
        configuration: FaultProxyConfiguration,
        channel: any Channel,
        upstream: EventLoopPromise<SocketAddress>
    ) {
        self.port = port
        self.configuration = configuration
        self.channel = channel
        self.upstream = upstream
        self.state = Mutex(State(random: SplitMix64(seed: configuration.seed)))
    }

    /// Listens on 127.0.0.1, on a free port. Connections accepted before ``setUpstream(port:)`` wait for it.
    ///
    /// - Parameter group: where the proxy runs; NIO's shared group by default.
    public static func start(
        configuration: FaultProxyConfiguration,
        group: (any EventLoopGroup)? = nil
    ) async throws -> FaultProxy {
        let group = group ?? MultiThreadedEventLoopGroup.singleton
        let upstream = group.next().makePromise(of: SocketAddress.self)
        let box = ProxyBox()
        let channel = try await ServerBootstrap(group: group)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { child in
                guard let proxy = box.proxy.withLock({ $0 }) else { return child.close() }
                return child.eventLoop.makeCompletedFuture { try proxy.accept(child) }
            }
            .bind(host: "127.0.0.1", port: 0)
            .get()
        guard let port = channel.localAddress?.port else {
            try? await channel.close()
            upstream.fail(ChannelError.ioOnClosedChannel)
            throw ChannelError.unknownLocalAddress
        }
        let proxy = FaultProxy(port: port, configuration: configuration, channel: channel, upstream: upstream)
        box.proxy.withLock { $0 = proxy }
        return proxy
    }

    /// Where the proxy relays to: 127.0.0.1:`port`. Only the first call counts.
    public func setUpstream(port: Int) {
        guard claimUpstream() else { return }
        do {
            upstream.succeed(try SocketAddress(ipAddress: "127.0.0.1", port: port))
        } catch {
            upstream.fail(error)
        }
    }

    /// Faults on (the default) or off: off, the proxy relays every frame as it comes (answers to duplicates sent
    /// before are still swallowed).
    public func setFaultsEnabled(_ enabled: Bool) {
        state.withLock { $0.faultsEnabled = enabled }
    }

    /// What the proxy has done so far.
    public var counts: FaultProxyCounts { state.withLock { $0.counts } }

    /// Stops listening and closes every relayed connection.
    public func shutdown() async throws {
        setUpstreamFailedIfUnset()
        try await channel.close()
        let connections = state.withLock { state in
            defer { state.connections = [:] }
            return Array(state.connections.values)
        }
        for connection in connections { try? await connection.close() }
    }

    // MARK: Decisions, for the relays

    /// What to do with one request frame; nil when faults are off.
    func requestFaults() -> RequestFaults? {
        state.withLock { state in
            state.counts.requests += 1
            guard state.faultsEnabled else { return nil }
            var faults = RequestFaults()
            faults.holdBack = Double.random(in: 0..<1, using: &state.random) < configuration.reorderRate
            if !faults.holdBack, Double.random(in: 0..<1, using: &state.random) < configuration.delayRate {
                faults.delay = randomDelay(using: &state.random)
                state.counts.delayed += 1
            }
            if Double.random(in: 0..<1, using: &state.random) < configuration.duplicateRate {
                faults.duplicateDelay = randomDelay(using: &state.random)
                state.counts.duplicated += 1
            }
            return faults
        }
    }

    private func randomDelay(using random: inout SplitMix64) -> TimeAmount {
        .nanoseconds(Int64.random(in: 1...max(1, configuration.delayMax.nanoseconds), using: &random))
    }

    /// Whether to drop one answer to the caller's call (counted if so).
    func dropsAnswer() -> Bool {
        state.withLock { state in
            guard state.faultsEnabled,
                Double.random(in: 0..<1, using: &state.random) < configuration.dropAnswerRate
            else { return false }
            state.counts.droppedAnswers += 1
            return true
        }
    }

    /// Counts a change of the proxy's counts done by a relay.
    func count(_ change: (inout FaultProxyCounts) -> Void) {
        state.withLock { change(&$0.counts) }
    }

    private func setUpstreamFailedIfUnset() {
        guard claimUpstream() else { return }
        upstream.fail(ChannelError.ioOnClosedChannel)
    }

    /// Whether this caller is the first to settle the upstream address.
    private func claimUpstream() -> Bool {
        state.withLock { state in
            defer { state.upstreamSet = true }
            return !state.upstreamSet
        }
    }

    /// Relays a newly accepted connection (on its event loop).
    private func accept(_ child: any Channel) throws {
        let key = ObjectIdentifier(child)
        let admitted = state.withLock { state in
            guard state.connections.count < configuration.connectionsMax else { return false }
            state.counts.connections += 1
            state.connections[key] = child
            return true
        }
        guard admitted else {
            child.close(promise: nil)
            return
        }
        child.closeFuture.whenComplete { _ in _ = self.state.withLock { $0.connections.removeValue(forKey: key) } }
        let link = FaultProxyLink(proxy: self, gatewaySide: child)
        try child.pipeline.syncOperations.addHandler(FaultProxyRelay(direction: .toService, link: link))
        let eventLoop = child.eventLoop
        upstream.futureResult.hop(to: eventLoop).flatMap { address in
            ClientBootstrap(group: eventLoop)
                .channelInitializer { service in
                    service.eventLoop.makeCompletedFuture {
                        try service.pipeline.syncOperations.addHandler(
                            FaultProxyRelay(direction: .toGateway, link: link)
                        )
                    }
                }
                .connect(to: address)
        }.whenComplete { result in
            switch result {
            case .success(let service): link.connected(service)
            case .failure: link.close()
            }
        }
    }
}

/// The faults chosen for one request frame.
struct RequestFaults {
    /// Hold the request back until the next one has gone (then it goes without a delay).
    var holdBack = false
    /// Send the request this much later.
    var delay: TimeAmount?
    /// Send a duplicate this much later.
    var duplicateDelay: TimeAmount?
}

/// Lets the server's child initializer reach the proxy, which exists only once the server is bound.
private final class ProxyBox: Sendable {
    let proxy = Mutex<FaultProxy?>(nil)
}
