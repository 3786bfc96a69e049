import Logging
import ServiceLifecycle

/// The periodic sweep as a swift-service-lifecycle service: a sweep at start, then one `sweepInterval` after the
/// end of the previous. Graceful shutdown ends the wait at once, or the running sweep after its current account.
struct SweepLoop: Service {
    let sweeper: Sweeper
    let interval: Duration

    func run() async throws {
        while !Task.isShuttingDownGracefully && !Task.isCancelled {
            _ = await sweeper.sweep(dryRun: false)
            do {
                try await cancelWhenGracefulShutdown { [interval] in try await Task.sleep(for: interval) }
            } catch {
                return  // cancelled, or shutting down
            }
        }
    }
}
