public import FoyerWire
public import NIOCore

/// The handlers a server hosts, by method id.
///
/// Each handler is registered with its typed `RPCMethod`; the router decodes the request body (a body that
/// does not decode exactly is answered `invalidArgument` without calling the handler) and encodes the
/// response.
///
/// A service's router is built from its operation table (`RPCRouter(serving: IdentityMethods.all)`): a handler
/// for a method outside the table is a programmer error, and so is a method of the table left without a handler
/// (`RPCServer` refuses to start with one), so the table, the handlers and the docs tested against the table
/// cannot drift apart.
public struct RPCRouter: Sendable {
    typealias ErasedHandler = @Sendable (ByteBuffer, RPCContext) async throws -> ByteBuffer

    struct Route: Sendable {
        let name: String
        let handler: ErasedHandler
    }

    private(set) var routes: [UInt16: Route] = [:]
    /// The operation table this router serves, by id; nil for a router not built from one (tests, benchmarks).
    private let table: [UInt16: RPCMethodDescriptor]?

    public init() { table = nil }

    /// A router for the methods of `table` and nothing else. Ids must be unique.
    public init(serving table: [RPCMethodDescriptor]) {
        self.table = Dictionary(table.map { ($0.id, $0) }) { first, second in
            preconditionFailure("\(first) and \(second) share a method id")
        }
    }

    /// The methods of the operation table that have no handler yet, in id order: empty once the service has
    /// registered everything.
    public var unservedMethods: [RPCMethodDescriptor] {
        (table?.values ?? [:].values).filter { routes[$0.id] == nil }.sorted { $0.id < $1.id }
    }

    /// Whether `method` may be registered: any method without a table, else the built-in methods every server
    /// answers and the table's very methods (same id, name and idempotent flag).
    public func serves(_ method: RPCMethodDescriptor) -> Bool {
        guard let table else { return true }
        return table[method.id] == method || Self.builtins.contains(method)
    }

    private static let builtins: Set = [BuiltinMethods.health.descriptor, BuiltinMethods.echo.descriptor]

    /// Registers `handler` for `method`. Registering one id twice, or a method outside the operation table, is a
    /// programmer error.
    public mutating func register<Request, Response>(
        _ method: RPCMethod<Request, Response>,
        _ handler: @escaping @Sendable (Request, RPCContext) async throws -> Response
    ) {
        precondition(routes[method.id] == nil, "method id \(method.id) registered twice")
        precondition(serves(method.descriptor), "\(method) is not in the router's operation table")
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

    /// Runs the handler registered for `method` on an encoded request `body`, as the binary listener does, and
    /// returns the encoded answer: how another transport (the gateway's HTTP edge) runs the very same code. A
    /// method without a handler throws `unimplemented`; a body that does not decode exactly, `invalidArgument`.
    public func respond(to method: UInt16, body: ByteBuffer, context: RPCContext) async throws -> ByteBuffer {
        guard let route = routes[method] else {
            throw RPCError(.unimplemented, "no method 0x\(String(method, radix: 16))")
        }
        return try await route.handler(body, context)
    }
}
