import FoyerAPI
import FoyerRPC
import FoyerWire
import Logging

/// How `FoyerClient`'s calls reach the gateway: the binary protocol (``BinaryGatewayTransport``) or the HTTP edge
/// (``HTTPGatewayTransport``). Both take the same typed gateway methods and answer the same `FoyerAPI` values and
/// `FoyerError`s, so everything above `FoyerClient.call` is the same whichever is used.
protocol GatewayTransport: Sendable {
    /// Calls `method` with `request`, retrying where that is safe, within the configuration's `callTimeout`.
    func call<Request, Response>(
        _ method: RPCMethod<Request, Response>,
        _ request: Request
    ) async throws(FoyerError) -> Response

    /// Closes the transport's connections; later calls fail `unavailable`.
    func shutdown() async
}

/// The binary protocol through the RPC runtime's client (its pool, deadlines and retries).
struct BinaryGatewayTransport: GatewayTransport {
    let rpc: RPCClient

    init(configuration: FoyerClientConfiguration, logger: Logger) {
        rpc = RPCClient(configuration: configuration.rpcConfiguration(), logger: logger)
    }

    func call<Request, Response>(
        _ method: RPCMethod<Request, Response>,
        _ request: Request
    ) async throws(FoyerError) -> Response {
        do {
            return try await rpc.call(method, request)
        } catch {
            throw FoyerError(error)
        }
    }

    func shutdown() async {
        await rpc.shutdown()
    }
}
