import Foundation
import FoyerJSON
import FoyerRPC
import FoyerWire
import Logging
import NIOCore

/// One row of the HTTP API: its OpenAPI operationId, verb and path, the binary method(s) it runs, and how it turns
/// the HTTP request into the binary request and the binary answer into JSON.
struct HTTPOperation: Sendable {
    let operationID: String
    let verb: String
    /// The path template, `{name}` standing for one segment (`/v1/documents/{collection}/{key}`).
    let path: String
    /// The binary methods the operation runs (one, but `completeEmailLink` picks sign-in or link).
    let methods: [UInt16]
    /// The HTTP status of a success.
    let successStatus: Int
    let run: @Sendable (HTTPCall, GatewayDispatcher) async throws -> JSONValue

    /// A row that builds one binary request, runs its method's handler and renders the answer.
    init<Request, Response>(
        _ operationID: String,
        _ verb: String,
        _ path: String,
        _ method: RPCMethod<Request, Response>,
        status: Int = 200,
        request: @escaping @Sendable (HTTPCall) throws -> Request,
        response: @escaping @Sendable (Response) throws -> JSONValue
    ) {
        self.init(operationID, verb, path, methods: [method.id], status: status) { call, dispatcher in
            try response(try await dispatcher.call(method, try request(call)))
        }
    }

    /// A row whose binary method depends on the request.
    init(
        _ operationID: String,
        _ verb: String,
        _ path: String,
        methods: [UInt16],
        status: Int = 200,
        run: @escaping @Sendable (HTTPCall, GatewayDispatcher) async throws -> JSONValue
    ) {
        self.operationID = operationID
        self.verb = verb
        self.path = path
        self.methods = methods
        self.successStatus = status
        self.run = run
    }

    /// The path's parameters if `segments` match the template, else nil.
    func match(_ segments: [Substring]) -> [String: String]? {
        Self.match(path, segments)
    }

    /// The parameters of `path`, a template where `{name}` stands for one segment, if `segments` match it.
    static func match(_ path: String, _ segments: [Substring]) -> [String: String]? {
        let template = path.split(separator: "/")
        guard template.count == segments.count else { return nil }
        var parameters: [String: String] = [:]
        for (expected, actual) in zip(template, segments) {
            if expected.hasPrefix("{") {
                guard let decoded = String(actual).removingPercentEncoding, !decoded.isEmpty else { return nil }
                parameters[String(expected.dropFirst().dropLast())] = decoded
            } else if expected != actual {
                return nil
            }
        }
        return parameters
    }
}

/// Runs a binary method's handler on the gateway's router, as the binary listener would for this client: same
/// handler, a deadline of the request timeout, the client's address as the peer (so per-source limits apply).
struct GatewayDispatcher: Sendable {
    let router: RPCRouter
    let deadline: NIODeadline
    let peerAddress: SocketAddress?
    let logger: Logger
    let allocator: ByteBufferAllocator

    func call<Request, Response>(_ method: RPCMethod<Request, Response>, _ request: Request) async throws -> Response {
        let context = RPCContext(
            method: method.id,
            callID: 0,
            deadline: deadline,
            peerAddress: peerAddress,
            peerName: "http",
            isIdempotent: method.isIdempotent,
            logger: logger,
            allocator: allocator
        )
        let answer = try await router.respond(
            to: method.id,
            body: request.encoded(allocator: allocator),
            context: context
        )
        do {
            return try Response(decoding: answer)
        } catch {
            logger.error("unreadable answer of \(method.name)", metadata: ["error": "\(error)"])
            throw RPCError(.internal, "internal error")
        }
    }
}
