import Logging
public import ServiceLifecycle

/// Adds the denials guest-quota counted in memory to `guest_quota_denials` every `denialFlushInterval`, and once
/// more when a graceful shutdown ends the loop. A failed flush is logged and its tallies wait for the next one.
///
/// Run it in the process's `ServiceGroup` before the server in the list: the group stops services in reverse
/// order, so the server has drained (no denial can come any more) when the last flush runs.
public struct DenialFlushLoop: Service {
    let store: GuestQuotaStore

    public func run() async throws {
        let interval = store.configuration.denialFlushInterval
        while !Task.isShuttingDownGracefully && !Task.isCancelled {
            do {
                try await cancelWhenGracefulShutdown { try await Task.sleep(for: interval) }
            } catch {
                break  // cancelled, or shutting down
            }
            await flushLogging()
        }
        await flushLogging()
    }

    /// Writes the tallies now (the loop's rounds; tests).
    public func flush() async throws {
        try await store.flushDenials()
    }

    private func flushLogging() async {
        do {
            try await store.flushDenials()
        } catch {
            store.logger.warning("flushing denial counts failed", metadata: ["error": "\(String(reflecting: error))"])
        }
    }
}
