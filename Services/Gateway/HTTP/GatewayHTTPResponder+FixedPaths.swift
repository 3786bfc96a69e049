import Foundation
import FoyerAPI
import FoyerCrypto
import FoyerJSON
import FoyerRPC
import FoyerWire
import Hummingbird
import NIOCore

extension GatewayHTTPResponder {
    /// The paths outside `/v1` (GET only): JWKS, OpenID configuration, health, readiness, the OpenAPI document,
    /// the web example.
    func fixedPath(_ path: String, request: Request, context: GatewayHTTPContext) async throws -> Response? {
        let paths = [
            "/.well-known/jwks.json", "/.well-known/openid-configuration", "/healthz", "/readyz", "/openapi.yaml",
            "/example/",
        ]
        guard paths.contains(path) else { return nil }
        guard request.method == .get || request.method == .head else {
            var response = Self.problemResponse(.methodNotAllowed("only GET is allowed on \(path)"))
            response.headers[.allow] = "GET"
            return response
        }
        let dispatcher = GatewayDispatcher(
            router: gateway.router,
            deadline: .now() + configuration.requestTimeout,
            peerAddress: clientAddress(request, context: context),
            logger: logger,
            allocator: ByteBufferAllocator()
        )
        switch path {
        case "/.well-known/jwks.json":
            let jwks = try await dispatcher.call(GatewayMethods.jwks, Empty())
            var response = Response(
                status: .ok,
                body: ResponseBody(byteBuffer: ByteBuffer(bytes: jwks.json))
            )
            response.headers[.contentType] = "application/json"
            response.headers[.cacheControl] = "public, max-age=\(configuration.jwksMaxAgeSeconds)"
            return response
        case "/.well-known/openid-configuration":
            let jwks = try await dispatcher.call(GatewayMethods.jwks, Empty())
            var response = Self.jsonResponse(openIDConfiguration(context, jwks: jwks), status: 200)
            response.headers[.cacheControl] = "public, max-age=\(configuration.jwksMaxAgeSeconds)"
            return response
        case "/healthz":
            return Self.jsonResponse(["status": "serving"], status: 200)
        case "/readyz":
            return try await readiness()
        case "/example/":
            return try file(
                files.examplePage,
                contentType: "text/html; charset=utf-8",
                what: "example page"
            )
        default:
            return try file(files.openAPIDocument, contentType: "application/yaml", what: "OpenAPI document")
        }
    }

    /// 200 when identity itself answers its health check, serving, within `readinessTimeout`; 503 otherwise. Not
    /// the JWKS, which the gateway may serve from its cache long after identity has gone. The path needs no
    /// credentials, so requests arriving while a check is under way share it: identity sees at most one readiness
    /// call at a time from this listener, however many clients ask.
    private func readiness() async throws -> Response {
        let ready = try await readinessChecks.run(0) {
            let health = try? await gateway.identity.call(
                BuiltinMethods.health,
                Empty(),
                options: CallOptions(timeout: configuration.readinessTimeout)
            )
            return health?.state == .serving
        }
        guard ready else { throw HTTPProblem.unavailable("identity does not answer") }
        return Self.jsonResponse(["status": "ready"], status: 200)
    }

    /// The discovery document, for resource servers that verify access tokens: the configured issuer, `jwks_uri`,
    /// and the algorithms of the keys the JWKS publishes now (identity's, as the gateway caches them), so a verifier
    /// that allows only the listed algorithms accepts the tokens of a key being replaced and of its successor.
    ///
    /// Its `jwks_uri` comes from `publicURL`, else from the address the client connected to (this listener's own),
    /// never from the request's `Host`, which the client chooses: a discovery document fetched through a cache or
    /// proxy must not point verifiers at a key set of the client's choosing.
    private func openIDConfiguration(_ context: GatewayHTTPContext, jwks: JWKSResponse) -> JSONValue {
        let base: String
        if let publicURL = configuration.publicURL {
            base = publicURL.hasSuffix("/") ? String(publicURL.dropLast()) : publicURL
        } else {
            let scheme = configuration.tls == nil ? "http://" : "https://"
            base = scheme + Self.authority(context.localAddress, orElse: "\(configuration.host):\(configuration.port)")
        }
        return [
            "issuer": .string(gateway.configuration.issuer),
            "jwks_uri": .string(base + "/.well-known/jwks.json"),
            "id_token_signing_alg_values_supported": .array(Self.algorithms(of: jwks).map { .string($0) }),
            "subject_types_supported": ["public"],
            "response_types_supported": ["token"],
        ]
    }

    /// The algorithms of the keys in a JWK Set, in ``JWSAlgorithm``'s order, each once; none if the set does not
    /// parse (identity publishes only keys FoyerCrypto reads, so that would be a bug, and verifiers then fail closed).
    static func algorithms(of jwks: JWKSResponse) -> [String] {
        let keys = (try? JWKSet(json: jwks.json))?.keys ?? []
        let published = Set(keys.compactMap { try? $0.verificationKey().algorithm })
        return JWSAlgorithm.allCases.filter(published.contains).map(\.rawValue)
    }

    /// `host:port` of a socket address (`[v6]:port` for IPv6), or `fallback` for one without an IP address.
    static func authority(_ address: SocketAddress?, orElse fallback: String) -> String {
        guard let address, let ip = address.ipAddress, let port = address.port else { return fallback }
        if case .v6 = address { return "[\(ip)]:\(port)" }
        return "\(ip):\(port)"
    }

    /// A file the gateway was told to serve, as read when the listener was set up; 404 when none was configured or
    /// it could not be read.
    private func file(_ contents: ByteBuffer?, contentType: String, what: String) throws -> Response {
        guard let contents else { throw HTTPProblem.notFound("this gateway serves no \(what)") }
        var response = Response(status: .ok, body: ResponseBody(byteBuffer: contents))
        response.headers[.contentType] = contentType
        return response
    }
}
