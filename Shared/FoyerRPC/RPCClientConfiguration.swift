public import FoyerWire
public import NIOCore

/// How an `RPCClient` reaches one upstream service, with the defaults used unless a caller says otherwise.
public struct RPCClientConfiguration: Sendable {
    public var host: String
    public var port: Int
    /// The service expected at the other end, checked by the server; "" accepts any.
    public var serviceName: String
    /// Our name, sent in HELLO for the server's logs.
    public var peerName: String
    /// The cluster secret to prove in the handshake; `nil` for a server that asks no proof (the gateway).
    public var clusterSecret: ClusterSecret?
    /// TLS to the server; `nil` (the default): plaintext.
    public var tls: RPCClientTLS?
    /// Connections kept to the upstream; calls go to the least loaded one.
    public var connectionsMax: Int = 2
    /// In-flight requests asked for per connection (the server may grant fewer); more wait in a local queue.
    public var maxInFlightPerConnection: UInt16 = 512
    /// Calls that may wait for an in-flight slot per connection before new ones fail `overloaded`.
    public var queuedCallsPerConnectionMax: Int = 8192
    /// Largest `len` accepted from the server.
    public var frameLengthMax: UInt32 = 1 << 20
    /// Whether to offer LZ4 compression.
    public var compressionEnabled: Bool = true
    /// The LZ4 block codec for this client's bodies: Swift by default (builds everywhere); the services pass
    /// `LZ4BlockCodec.liblz4` (`FoyerLZ4`). The bytes on the wire do not depend on it.
    public var compressionCodec: LZ4BlockCodec = .swift
    /// TCP connect plus handshake.
    public var connectTimeout: TimeAmount = .seconds(3)
    /// Deadline of a call that sets none.
    public var defaultCallTimeout: TimeAmount = .seconds(10)
    /// Attempts per call, the first included, where the status allows a retry and the deadline leaves time.
    public var maxAttempts: Int = 3
    /// Backoff between attempts of one call: full jitter, doubling from the base up to the max.
    public var retryBackoffBase: TimeAmount = .milliseconds(25)
    public var retryBackoffMax: TimeAmount = .seconds(1)
    /// Backoff between connection attempts after failures: full jitter, doubling from the base up to the max.
    public var reconnectBackoffBase: TimeAmount = .milliseconds(50)
    public var reconnectBackoffMax: TimeAmount = .seconds(5)
    /// While calls are in flight and nothing arrives for this long, send PING.
    public var keepaliveInterval: TimeAmount = .seconds(10)
    /// Close the connection (failing its calls as outcome unknown) if nothing arrives this long after a PING.
    public var keepaliveTimeout: TimeAmount = .seconds(10)
    /// Where the client records its calls; `nil` (the default): the process's `MetricsSystem`
    /// (``RPCMetrics/process``) as it is when the client is created, a no-op unless the process bootstrapped it.
    public var metrics: RPCMetrics?
    /// How the client traces its calls; `nil` (the default): the process's tracer (``RPCTracing/process``) as it is
    /// when the client is created, off unless the process bootstrapped one.
    public var tracing: RPCTracing?

    public init(host: String, port: Int, serviceName: String, peerName: String, clusterSecret: ClusterSecret?) {
        self.host = host
        self.port = port
        self.serviceName = serviceName
        self.peerName = peerName
        self.clusterSecret = clusterSecret
    }
}

/// Per-call settings.
public struct CallOptions: Sendable {
    /// When to give up; takes precedence over `timeout`. Pass a handler's `context.deadline` here so the
    /// downstream call gets only the time that remains.
    public var deadline: NIODeadline?
    /// How long to wait, if no `deadline` is given; the client's `defaultCallTimeout` otherwise.
    public var timeout: TimeAmount?
    /// Overrides the method's own idempotency (for instance a create made safe by an idempotency key).
    public var idempotent: Bool?

    public init(deadline: NIODeadline? = nil, timeout: TimeAmount? = nil, idempotent: Bool? = nil) {
        self.deadline = deadline
        self.timeout = timeout
        self.idempotent = idempotent
    }
}
