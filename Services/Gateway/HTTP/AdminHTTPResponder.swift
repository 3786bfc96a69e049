import Foundation
import FoyerAPI
import FoyerGateway
import FoyerJSON
import FoyerRPC
import Hummingbird
import Logging
import NIOCore

/// Answers the admin listener: the console's files at `/admin/`, and the admin API under `/admin/v1`, where every
/// request must carry `Authorization: Bearer <admin key>`.
///
/// Every API answer says `Cache-Control: no-store` (user records and keys must not linger in caches); the console's
/// files say `no-cache` with an `ETag` (no secret is in them: a browser keeps them and revalidates each load), and
/// come with a Content-Security-Policy that allows only their own script and style.
struct AdminHTTPResponder: HTTPResponder {
    let admin: GatewayAdmin
    let configuration: AdminHTTPConfiguration
    let logger: Logger
    let routes = AdminRoutes.all

    func respond(to request: Request, context: GatewayHTTPContext) async throws -> Response {
        var response: Response
        do {
            response = try await answer(request, context: context)
        } catch let problem as HTTPProblem {
            response = GatewayHTTPResponder.problemResponse(problem)
        } catch let error as RPCError {
            response = GatewayHTTPResponder.problemResponse(HTTPProblem(error))
        } catch {
            logger.error("admin request failed", metadata: ["error": "\(String(reflecting: error))"])
            response = GatewayHTTPResponder.problemResponse(HTTPProblem(RPCError(.internal, "internal error")))
        }
        if response.headers[.cacheControl] == nil { response.headers[.cacheControl] = "no-store" }
        response.headers[.xContentTypeOptions] = "nosniff"
        response.headers[.init("Referrer-Policy")!] = "no-referrer"
        return response
    }

    private func answer(_ request: Request, context: GatewayHTTPContext) async throws -> Response {
        let path = request.uri.path
        if let file = AdminConsole.files[path] {
            guard request.method == .get || request.method == .head else {
                throw HTTPProblem.methodNotAllowed("only GET is allowed on \(path)")
            }
            return Self.response(file, ifNoneMatch: request.headers[values: .ifNoneMatch])
        }
        if path == "/admin" {
            var response = Response(status: .permanentRedirect)
            response.headers[.location] = "/admin/"
            return response
        }
        guard path.hasPrefix("/admin/v1/") else { throw HTTPProblem.notFound("nothing at \(path)") }
        let segments = Array(path.split(separator: "/", omittingEmptySubsequences: false).dropFirst())
        let matches = routes.compactMap { route in
            HTTPOperation.match(route.path, segments).map { (route, $0) }
        }
        guard !matches.isEmpty else { throw HTTPProblem.notFound("no admin operation at \(path)") }
        guard let (route, parameters) = matches.first(where: { $0.0.verb == request.method.rawValue }) else {
            var problem = GatewayHTTPResponder.problemResponse(
                .methodNotAllowed("\(request.method.rawValue) is not allowed on \(path)")
            )
            problem.headers[.allow] = matches.map(\.0.verb).joined(separator: ", ")
            return problem
        }
        let deadline = NIODeadline.now() + configuration.requestTimeout
        let call = try await HTTPCall.read(
            request,
            parameters: parameters,
            bodyLimit: configuration.bodyByteCountMax,
            timeout: configuration.requestTimeout
        )
        guard let key = call.optionalBearerToken(), !key.isEmpty else {
            throw HTTPProblem(
                status: 401,
                name: "unauthenticated",
                detail: "an Authorization: Bearer header with an admin key is required"
            )
        }
        let source = context.remoteAddress?.ipAddress ?? "unknown"
        let caller = try await admin.authenticate(key, source: source, deadline: deadline)
        let (status, json) = try await route.run(
            AdminCall(call: call, caller: caller, deadline: deadline, admin: admin, source: source)
        )
        return GatewayHTTPResponder.jsonResponse(json, status: status)
    }
}

extension AdminHTTPResponder {
    /// A console file, or `304 Not Modified` when `ifNoneMatch` names its entity tag (or is `*`).
    static func response(_ file: AdminConsole.File, ifNoneMatch: [String]) -> Response {
        var headers = HTTPFields()
        headers[.eTag] = file.entityTag
        headers[.cacheControl] = "no-cache"
        let tags = ifNoneMatch.flatMap { $0.split(separator: ",") }.map { $0.trimmingCharacters(in: .whitespaces) }
        // A weak comparison, as RFC 9110 §13.1.2 has it for If-None-Match: `W/"x"` matches `"x"`.
        if tags.contains(where: { $0 == "*" || $0 == file.entityTag || $0 == "W/" + file.entityTag }) {
            return Response(status: .notModified, headers: headers)
        }
        headers[.contentType] = file.contentType
        headers[.contentSecurityPolicy] =
            "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; "
            + "frame-ancestors 'none'; base-uri 'none'; form-action 'none'"
        headers[.init("X-Frame-Options")!] = "DENY"
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: file.body))
    }
}
