import Logging
import ServiceLifecycle

/// The identity service's periodic work (`IdentityCore.runMaintenance`) as a swift-service-lifecycle service:
/// a round every `maintenanceInterval`; a failed round is logged and the next one comes as usual; graceful
/// shutdown ends the loop.
struct IdentityJanitor: Service {
    let core: IdentityCore

    func run() async throws {
        let interval = core.configuration.maintenanceInterval
        let logger = core.logger
        try? await cancelWhenGracefulShutdown { [core] in
            while !Task.isCancelled {
                do {
                    try await core.runMaintenance()
                } catch is CancellationError {
                    return
                } catch {
                    logger.warning("maintenance round failed", metadata: ["error": "\(error)"])
                }
                try await Task.sleep(for: interval)
            }
        }
    }
}
