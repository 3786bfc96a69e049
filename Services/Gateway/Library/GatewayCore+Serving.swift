import FoyerAPI
import FoyerRPC
import FoyerWire

extension GatewayCore {
    /// Registers a call that acts for its user: the access token is authenticated (its signature here, the
    /// session's liveness from identity at most a session-check interval old) before `handler` runs, with call
    /// options bound to the request's deadline for the calls it makes to the services.
    func serve<Request: UserRequest, Response>(
        _ method: RPCMethod<Request, Response>,
        on router: inout RPCRouter,
        _ handler: @escaping @Sendable (Request, Caller, CallOptions) async throws -> Response
    ) {
        router.register(method) { request, context in
            let caller = try await self.authenticate(request.accessToken, context: context)
            return try await handler(request, caller, CallOptions(deadline: context.deadline))
        }
    }
}
