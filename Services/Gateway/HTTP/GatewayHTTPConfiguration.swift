import FoyerAPI
public import FoyerRPC
public import NIOCore

/// The gateway's HTTP/JSON listener: where it listens and its limits, with the defaults it gets unless told
/// otherwise.
public struct GatewayHTTPConfiguration: Sendable {
    /// Address to listen on; the binary listener's host in the executable.
    public var host: String = "127.0.0.1"
    /// Port to listen on; 0 picks a free one (see `GatewayHTTPServer.boundPort()`).
    public var port: Int = 0
    /// Exact origins (`https://app.example`) whose browsers may call the API; empty (the default): no CORS headers.
    public var corsOrigins: Set<String> = []
    /// The public base address of this listener (`https://api.example`), for `jwks_uri`; nil: the listener's own
    /// address on the client's connection (never the request's `Host`).
    public var publicURL: String?
    /// Where `/openapi.yaml` is read from; nil: that path answers 404.
    public var openAPIPath: String?
    /// An HTML page served at `/example/` (the web example); nil (the default): that path answers 404.
    public var examplePagePath: String?
    /// Largest request body: the document cap plus room for the JSON framing and base64. Longer bodies are
    /// refused with 413 before they are read whole.
    public var bodyByteCountMax = 2 * UserDataLimits.valueWireByteCountMax + 64 * 1024
    /// Largest header field, and largest sum of all header fields.
    public var headerByteCountMax = 16 * 1024
    /// Most header fields of one request.
    public var headerFieldCountMax = 100
    /// Time a call may take (its RPC deadline).
    public var requestTimeout: TimeAmount = .seconds(30)
    /// A connection with no request for this long is closed.
    public var idleTimeoutSeconds: Int64 = 60
    /// A new connection that has not sent the start of its first request within this long (its TLS handshake
    /// included, over HTTPS) is closed, so idle connections cannot hold places for the whole `idleTimeoutSeconds`.
    /// Default 10 s.
    public var firstRequestTimeoutSeconds: Int64 = 10
    /// Most open connections; more are closed at once.
    public var connectionsMax = 1024
    /// Most open connections from one client address (a trusted proxy's own are not limited, only the total is).
    public var connectionsPerSourceMax = 64
    /// Most open connections from one IPv6 /48, all its /64s together. Default 256 (four /64s' worth).
    public var connectionsPerNetworkMax = 256
    /// Time `/readyz` gives identity to answer its health check; past it, `/readyz` answers 503.
    public var readinessTimeout: TimeAmount = .seconds(1)
    /// Load balancers that name the client: by a PROXY protocol header (v1 or v2, optional) at the start of their
    /// connections, else by `Forwarded` / `X-Forwarded-For`. A PROXY header from any other peer is a bad request,
    /// and its `Forwarded` headers are ignored. Empty (the default): the socket's peer is the client.
    public var trustedProxies = TrustedProxies()
    /// The listener's certificate and key: HTTPS with TLS 1.2 or 1.3, HTTP/2 or HTTP/1.1 as ALPN agrees (a client
    /// that offers no ALPN gets HTTP/1.1); a plaintext request is refused. nil (the default): plaintext HTTP/1.1.
    /// The files are read when the listener is made (`GatewayHTTPServer.init` throws if they cannot be used) and again
    /// on each reload of `GatewayHTTPServer.certificate`, whose pair every new connection takes.
    public var tls: TLSSettings?
    /// Whether a request's `traceparent` continues into the gateway's spans (`--continue-client-traces`). Default
    /// false: only for a gateway whose HTTP callers are trusted (an app's own backend).
    public var continuesTraceparent = false
    /// How long clients may cache the JWKS: bounded by the gateway's published key-set lifetime.
    public var jwksMaxAgeSeconds = 300

    public init() {}
}
