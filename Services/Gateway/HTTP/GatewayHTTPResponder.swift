import Foundation
import FoyerAPI
import FoyerGateway
import FoyerJSON
import FoyerRPC
import Hummingbird
import Logging
import NIOCore

/// Answers every HTTP request: CORS, the fixed paths (well-known, health, OpenAPI), then the operation table.
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

    func respond(to request: Request, context: GatewayHTTPContext) async throws -> Response {
        let origin = request.headers[.origin].flatMap { configuration.corsOrigins.contains($0) ? $0 : nil }
        if request.method == .options, request.headers[.accessControlRequestMethod] != nil {
            return preflight(origin: origin)
        }
        var response: Response
        do {
            response = try await answer(request, context: context)
        } catch let problem as HTTPProblem {
            response = Self.problemResponse(problem)
        } catch let error as RPCError {
            response = Self.problemResponse(HTTPProblem(error))
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

    private func answer(_ request: Request, context: GatewayHTTPContext) async throws -> Response {
        let path = request.uri.path
        if let fixed = try await fixedPath(path, request: request, context: context) { return fixed }
        let segments = path.split(separator: "/", omittingEmptySubsequences: false).dropFirst()
        let matches = operations.compactMap { operation in operation.match(Array(segments)).map { (operation, $0) } }
        guard !matches.isEmpty else { throw HTTPProblem.notFound("no operation at \(path)") }
        guard let (operation, parameters) = matches.first(where: { $0.0.verb == request.method.rawValue }) else {
            var problem = Self.problemResponse(
                .methodNotAllowed("\(request.method.rawValue) is not allowed on \(path)")
            )
            problem.headers[.allow] = matches.map(\.0.verb).joined(separator: ", ")
            return problem
        }
        let call = try await httpCall(request, parameters: parameters)
        let dispatcher = GatewayDispatcher(
            router: gateway.router,
            deadline: .now() + configuration.requestTimeout,
            peerAddress: clientAddress(request, context: context),
            logger: logger,
            allocator: ByteBufferAllocator()
        )
        let json = try await operation.run(call, dispatcher)
        return Self.jsonResponse(json, status: operation.successStatus)
    }

    /// The request's inputs; the body read up to the cap (413 past it) and parsed as one JSON object.
    private func httpCall(_ request: Request, parameters: [String: String]) async throws -> HTTPCall {
        let limit = configuration.bodyByteCountMax
        if let length = request.headers[.contentLength].flatMap(Int.init), length > limit {
            throw HTTPProblem.bodyTooLarge(limit: limit)
        }
        let body = try await readBody(request.body, limit: limit)
        var call = HTTPCall(
            authorization: request.headers[.authorization],
            idempotencyKeyHeader: request.headers.first { $0.name.canonicalName == "idempotency-key" }?.value,
            pathParameters: parameters
        )
        for (name, value) in request.uri.queryParameters { call.query[String(name)] = String(value) }
        if body.readableBytes > 0 {
            guard case .object(let object)? = JSONValue.parse(body.readableBytesView) else {
                throw HTTPProblem.invalidArgument("the request body must be a JSON object")
            }
            call.body = object
        }
        return call
    }

    /// The body, up to `limit` bytes (413 past it), within the request timeout (408 past it: a slow client).
    private func readBody(_ body: RequestBody, limit: Int) async throws -> ByteBuffer {
        let timeout = Duration.nanoseconds(configuration.requestTimeout.nanoseconds)
        return try await withThrowingTaskGroup(of: ByteBuffer?.self) { group in
            group.addTask {
                do {
                    return try await body.collect(upTo: limit)
                } catch {
                    throw HTTPProblem.bodyTooLarge(limit: limit)
                }
            }
            group.addTask {
                try await Task.sleep(for: timeout)
                return nil
            }
            defer { group.cancelAll() }
            guard let body = try await group.next() ?? nil else {
                throw HTTPProblem(status: 408, name: "request-timeout", detail: "the request body came too slowly")
            }
            return body
        }
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

    static func jsonResponse(_ json: JSONValue, status: Int, contentType: String = "application/json") -> Response {
        var headers = HTTPFields()
        headers[.contentType] = contentType
        return Response(
            status: HTTPResponse.Status(code: status),
            headers: headers,
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: json.bytes))
        )
    }

    static func problemResponse(_ problem: HTTPProblem) -> Response {
        var response = jsonResponse(problem.json, status: problem.status, contentType: "application/problem+json")
        if let seconds = problem.retryAfterSeconds { response.headers[.retryAfter] = String(seconds) }
        if problem.status == 401 { response.headers[.wwwAuthenticate] = "Bearer" }
        return response
    }
}
