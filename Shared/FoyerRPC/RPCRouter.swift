public import FoyerWire
import NIOCore

/// The handlers a server hosts, by method id.
///
/// Each handler is registered with its typed `RPCMethod`; the router decodes the request body (a body that
/// does not decode exactly is answered `invalidArgument` without calling the handler) and encodes the
/// response.
public struct RPCRouter: Sendable {
    typealias ErasedHandler = @Sendable (ByteBuffer, RPCContext) async throws -> ByteBuffer

    struct Route: Sendable {
        let name: String
        let handler: ErasedHandler
    }

    private(set) var routes: [UInt16: Route] = [:]

    public init() {}

    /// Registers `handler` for `method`. Registering one id twice is a programmer error.
    public mutating func register<Request, Response>(
        _ method: RPCMethod<Request, Response>,
        _ handler: @escaping @Sendable (Request, RPCContext) async throws -> Response
    ) {
        precondition(routes[method.id] == nil, "method id \(method.id) registered twice")
        let name = method.name
        routes[method.id] = Route(name: name) { body, context in
            let request: Request
            do {
                request = try Request(decoding: body)
            } catch {
                throw RPCError.invalidArgument("\(name): \(error)")
            }
            return try await handler(request, context).encoded(allocator: context.allocator)
        }
    }

    func route(for method: UInt16) -> Route? { routes[method] }
}
