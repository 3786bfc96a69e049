public import FoyerWire
public import NIOCore

/// Everything an `RPCServer` can be told, with the defaults a service gets unless it says otherwise.
public struct RPCServerConfiguration: Sendable {
    /// Address to listen on; `127.0.0.1` by default.
    public var host: String = "127.0.0.1"
    /// Port to listen on; 0 picks a free one (see `RPCServer.boundAddress()`).
    public var port: Int = 0
    /// The hosted service's name, announced in HELLO_ACK and checked against the client's `service`.
    public var serviceName: String
    /// The cluster secret peers must prove; `nil` asks no proof (the gateway's client port only).
    public var clusterSecret: ClusterSecret?
    /// Largest `len` accepted in a frame, and the cap on a decompressed body. 1 MiB.
    public var frameLengthMax: UInt32 = 1 << 20
    /// Most requests one connection may have in flight (the client may ask for fewer).
    public var maxInFlightPerConnection: UInt16 = 512
    /// Most requests being handled at once across all connections; past it the server stops reading.
    public var maxConcurrentRequests: Int = 4096
    /// Most open connections; more are answered GOAWAY `too-many-connections` and closed. Counted from the TCP
    /// accept, so connections still in their handshake count.
    public var maxConnections: Int = 1024
    /// Most open connections from one source (an IPv4 address, or an IPv6 /64), counted like `maxConnections`;
    /// more from that source are answered GOAWAY `too-many-connections` and closed. From a trusted proxy the source
    /// is the client the PROXY header names (the proxy's own address is not limited, only the total is).
    public var maxConnectionsPerSource: Int = 64
    /// Most open connections from one IPv6 /48, all its /64s together, counted like `maxConnectionsPerSource`
    /// (IPv4 sources have no such cap). Default 256 (four /64s' worth).
    public var maxConnectionsPerNetwork: Int = 256
    /// Load balancers whose connections start with a PROXY protocol header (v1 or v2) naming the client; for
    /// those, `RPCContext.peerAddress` is the header's address. Empty (the default): no header is accepted.
    public var trustedProxies = TrustedProxies()
    /// TLS on every accepted connection (see `TLSSettings.makeServerContext()`); `nil` (the default): plaintext. The
    /// connection limits and the PROXY header come before the TLS handshake; a connection refused for a limit is
    /// answered GOAWAY in plaintext and closed without one. Each connection takes the context's current state, so a
    /// reload (SIGHUP) changes the certificate for new connections only.
    public var tls: ReloadableTLSContext?
    /// Whether LZ4 is offered, and the body size from which it is used.
    public var compressionEnabled: Bool = true
    public var compressionThreshold: Int = BodyCompression.defaultThreshold
    /// The LZ4 block codec for this server's bodies: Swift by default; the services' `ServiceStartup` passes
    /// `LZ4BlockCodec.liblz4` (`FoyerLZ4`). The bytes on the wire do not depend on it.
    public var compressionCodec: LZ4BlockCodec = .swift
    /// Time from accepting a connection to a completed handshake.
    public var handshakeTimeout: TimeAmount = .seconds(5)
    /// A connection with no call in flight that sends no REQUEST or CANCEL for this long is closed. PING does not
    /// count, so a peer cannot hold a connection open by pinging.
    public var idleTimeout: TimeAmount = .seconds(300)
    /// A frame must arrive completely within this time of its first bytes.
    public var slowFrameTimeout: TimeAmount = .seconds(30)
    /// On graceful shutdown, how long in-flight requests get before connections are closed.
    public var drainTimeout: TimeAmount = .seconds(10)
    /// Allowed difference between the peer's clock and ours for handshake proofs.
    public var authenticationSkew: Duration = .seconds(30)
    /// PING frames accepted per second per connection (burst: 10x); more is a flood.
    public var pingsPerSecondMax: Int = 10
    /// CANCEL frames for calls that are not in flight accepted per second per connection (burst: 10x).
    public var strayCancelsPerSecondMax: Int = 100
    /// Warnings about refused peers (connections over a limit, handshakes refused) logged per
    /// `refusalWarningsInterval`, for each of the two kinds; the rest are counted in one summary line per interval.
    public var refusalWarningsMax: Int = 10
    public var refusalWarningsInterval: TimeAmount = .seconds(60)
    /// Where the server records its calls and connections; `nil` (the default): the process's `MetricsSystem`
    /// (``RPCMetrics/process``) as it is when the server is created, a no-op unless the executable bootstrapped it.
    public var metrics: RPCMetrics?
    /// How the server traces the calls it serves; `nil` (the default): the process's tracer (``RPCTracing/process``)
    /// as it is when the server is created, off unless the executable bootstrapped one. With tracing on, HELLO_ACK
    /// announces trace context (`HelloFeatures.traceContext`) to clients of protocol 1.1.
    public var tracing: RPCTracing?

    public init(serviceName: String, clusterSecret: ClusterSecret?) {
        self.serviceName = serviceName
        self.clusterSecret = clusterSecret
    }
}
