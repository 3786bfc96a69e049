import GRPCCore

/// The server side of the measured call: answers each `Echo` with the request's payload, as Foyer's built-in
/// echo method does.
struct EchoService: Foyer_Bench_BenchEcho.SimpleServiceProtocol {
    func echo(request: Foyer_Bench_EchoMessage, context: ServerContext) async throws -> Foyer_Bench_EchoMessage {
        request
    }
}
