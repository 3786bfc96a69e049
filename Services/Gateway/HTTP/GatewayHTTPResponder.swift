import Foundation
import FoyerAPI
import FoyerGateway
import FoyerJSON
import FoyerRPC
import Hummingbird
import Logging
import NIOCore

/// Answers every HTTP request: CORS, the fixed paths (well-known, health, OpenAPI), then the operation table; and
/// records each in the edge's metrics (``HTTPEdgeMetrics``), inside a server span (``HTTPEdgeTracing``).
struct GatewayHTTPResponder: HTTPResponder {
    let gateway: GatewayService
    let configuration: GatewayHTTPConfiguration
    let logger: Logger
    /// The clients PROXY headers named, per connection.
    let proxiedClients: ProxiedClients
    /// The OpenAPI document and the example page, read once when the listener is set up rather than from disk on
    /// every unauthenticated request.
    let files: ServedFiles
    let operations = HTTPOperations.all
    let readinessChecks = SingleFlight<Int, Bool>()
    /// The request counts and durations, made once with the listener.
    let metrics = HTTPEdgeMetrics()
    /// The request spans, with the tracer the process had when the listener was set up.
    let tracing: HTTPEdgeTracing

    func respond(to request: Request, context: GatewayHTTPContext) async throws -> Response {
        let started = ContinuousClock.now
        let (response, route) = await tracing.withServerSpan(method: request.method.rawValue, headers: request.headers)
        {
            var route = HTTPEdgeMetrics.otherRoute
            let response = await respond(to: request, context: context, route: &route)
            return (response, route)
        }
        metrics.answered(
            route: route,
            method: request.method.rawValue,
            status: response.status.code,
            duration: ContinuousClock.now - started
        )
        return response
    }

    /// The answer to any request, errors included; `route` is set to the metrics' route of what answered (the
    /// operation's path template, a fixed path), and stays `other` for a path nothing serves.
    private func respond(to request: Request, context: GatewayHTTPContext, route: inout String) async -> Response {
        let origin = request.headers[.origin].flatMap { configuration.corsOrigins.contains($0) ? $0 : nil }
        if request.method == .options, request.headers[.accessControlRequestMethod] != nil {
            let matches = operationMatches(request.uri.path)
            let asked = request.headers[.accessControlRequestMethod]
            route = (matches.first { $0.0.verb == asked } ?? matches.first)?.0.path ?? HTTPEdgeMetrics.otherRoute
            return preflight(origin: origin)
        }
        var response: Response
        // RFC 6750 section 3.1: a 401 names the error only when the request presented a bearer token.
        let presentedToken = HTTPCall(authorization: request.headers[.authorization]).optionalBearerToken()
        let tokenPresented = presentedToken?.isEmpty == false
        do {
            response = try await answer(request, context: context, route: &route)
        } catch let problem as HTTPProblem {
            response = Self.problemResponse(problem, tokenPresented: tokenPresented)
        } catch let error as RPCError {
            response = Self.problemResponse(HTTPProblem(error), tokenPresented: tokenPresented)
        } catch {
            logger.error("HTTP request failed", metadata: ["error": "\(String(reflecting: error))"])
            response = Self.problemResponse(HTTPProblem(RPCError(.internal, "internal error")))
        }
        if let origin {
            response.headers[.accessControlAllowOrigin] = origin
            response.headers[.accessControlExposeHeaders] = "Retry-After"
            response.headers[.vary] = "Origin"
        }
        return response
    }

    /// The answer to a CORS preflight: the allow-list's headers for an allowed origin, none for another.
    private func preflight(origin: String?) -> Response {
        var response = Response(status: .noContent)
        guard let origin else { return response }
        response.headers[.accessControlAllowOrigin] = origin
        response.headers[.accessControlAllowMethods] = "GET, POST, PUT, DELETE"
        response.headers[.accessControlAllowHeaders] = "Authorization, Content-Type, Idempotency-Key"
        response.headers[.accessControlMaxAge] = "600"
        response.headers[.vary] = "Origin"
        return response
    }

    private func answer(
        _ request: Request,
        context: GatewayHTTPContext,
        route: inout String
    ) async throws -> Response {
        let path = request.uri.path
        // `fixedPath` answers (or throws) only for its few paths, and returns nil at once for any other.
        route = path
        if let fixed = try await fixedPath(path, request: request, context: context) { return fixed }
        route = HTTPEdgeMetrics.otherRoute
        let matches = operationMatches(path)
        guard let first = matches.first else { throw HTTPProblem.notFound("no operation at \(path)") }
        guard let (operation, parameters) = matches.first(where: { $0.0.verb == request.method.rawValue }) else {
            route = first.0.path
            var problem = Self.problemResponse(
                .methodNotAllowed("\(request.method.rawValue) is not allowed on \(path)")
            )
            problem.headers[.allow] = matches.map(\.0.verb).joined(separator: ", ")
            return problem
        }
        route = operation.path
        let call = try await HTTPCall.read(
            request,
            parameters: parameters,
            bodyLimit: configuration.bodyByteCountMax,
            timeout: configuration.requestTimeout
        )
        try HTTPCall.onlyMembers(HTTPOperations.bodyMembers[operation.operationID] ?? [], of: call.body)
        let dispatcher = GatewayDispatcher(
            router: gateway.router,
            deadline: .now() + configuration.requestTimeout,
            peerAddress: clientAddress(request, context: context),
            logger: logger,
            allocator: ByteBufferAllocator()
        )
        let json: JSONValue
        do {
            json = try await operation.run(call, dispatcher)
        } catch let error as RPCError {
            let forCaller =
                call.optionalBearerToken() != nil
                && !ProblemMapping.touchesAnotherAccount.contains(operation.operationID)
            throw HTTPProblem(error, forCaller: forCaller)
        }
        return Self.jsonResponse(json, status: operation.successStatus)
    }

    /// The operations whose path template `path` matches (whatever their verb), with the path's parameters.
    /// The operations whose path matches, with their parameters. OpenAPI's rule: a concrete path matches before a
    /// templated one, so `/v1/documents/import` is the import alone (its 405s allow POST only), not also the
    /// listing of a collection named `import`.
    private func operationMatches(_ path: String) -> [(HTTPOperation, [String: String])] {
        let segments = Array(path.split(separator: "/", omittingEmptySubsequences: false).dropFirst())
        let matches = operations.compactMap { operation in operation.match(segments).map { (operation, $0) } }
        let concrete = matches.filter { !$0.0.path.contains("{") }
        return concrete.isEmpty ? matches : concrete
    }

    /// The client's address: the peer (the client a trusted proxy's PROXY header named, else the socket's peer), or
    /// what that peer says in `Forwarded` / `X-Forwarded-For` if it is a trusted proxy itself.
    func clientAddress(_ request: Request, context: GatewayHTTPContext) -> SocketAddress? {
        func header(_ name: String) -> String? {
            request.headers.first { $0.name.canonicalName == name }?.value
        }
        return ClientAddress.resolve(
            peer: proxiedClients.address(of: context.connection) ?? context.remoteAddress,
            forwarded: header("forwarded"),
            xForwardedFor: header("x-forwarded-for"),
            trustedProxies: configuration.trustedProxies
        )
    }

    /// The 401 statuses about a credential the body carried, not the bearer token.
    static let credentialProblems: Set = ["invalid-credentials", "refresh-token-reused"]

    static func jsonResponse(_ json: JSONValue, status: Int, contentType: String = "application/json") -> Response {
        var headers = HTTPFields()
        headers[.contentType] = contentType
        return Response(
            status: HTTPResponse.Status(code: status),
            headers: headers,
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: json.bytes))
        )
    }

    /// The problem's answer; a 401 carries `WWW-Authenticate` (``bearerChallenge(_:tokenPresented:)``).
    static func problemResponse(_ problem: HTTPProblem, tokenPresented: Bool = false) -> Response {
        // An operation in progress (202) is not a problem; its body has the problem's members all the same.
        let type = problem.status < 400 ? "application/json" : "application/problem+json"
        var response = jsonResponse(problem.json, status: problem.status, contentType: type)
        if let seconds = problem.retryAfterSeconds { response.headers[.retryAfter] = String(seconds) }
        if problem.status == 401 {
            response.headers[.wwwAuthenticate] = bearerChallenge(problem, tokenPresented: tokenPresented)
        }
        return response
    }

    /// The RFC 6750 section 3 challenge of a 401: `Bearer` alone when the request presented no bearer token (no
    /// error code when it lacked authentication, section 3.1) or when what was refused is a credential in the body
    /// (a password, a refresh token), else `error="invalid_token"` with the problem's code and detail as
    /// `error_description`, kept to the characters its grammar allows (visible ASCII and space, without `"` and
    /// `\`).
    static func bearerChallenge(_ problem: HTTPProblem, tokenPresented: Bool) -> String {
        guard tokenPresented, !credentialProblems.contains(problem.name) else { return "Bearer" }
        let description = String(
            decoding: "\(problem.name): \(problem.detail)".utf8.map { byte -> UInt8 in
                switch byte {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"): UInt8(ascii: "'")
                case 0x20...0x7E: byte
                default: UInt8(ascii: "?")
                }
            },
            as: UTF8.self
        )
        return "Bearer error=\"invalid_token\", error_description=\"\(description)\""
    }
}
