public import FoyerWire

/// A service's refusal, which it turns into its wire status in one place (``rpcError``).
public protocol RPCStatusMapping: Error {
    /// The wire form of the refusal.
    var rpcError: RPCError { get }
}

extension RPCRouter {
    /// Registers `method` with a handler whose `Failure` errors become their statuses; anything else passes on to
    /// the runtime, which answers `internal` and logs the detail.
    public mutating func register<Request, Response, Failure: RPCStatusMapping>(
        _ method: RPCMethod<Request, Response>,
        mapping _: Failure.Type,
        _ handler: @escaping @Sendable (Request) async throws -> Response
    ) {
        register(method) { request, _ in
            do {
                return try await handler(request)
            } catch let error as Failure {
                throw error.rpcError
            }
        }
    }
}
