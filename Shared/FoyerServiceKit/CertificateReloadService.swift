public import FoyerRPC
public import Logging
public import ServiceLifecycle
import UnixSignals

/// Reloads a process's TLS material (its listeners' certificate and key, the CA, the certificate it dials with) from
/// their files on every SIGHUP: new connections use the new files, open connections keep what they started with. A
/// reload that fails (a file missing or unreadable, a key that does not match) is logged as an error and the old
/// material stays. Runs until graceful shutdown; SIGHUP never ends the process while it runs.
public struct CertificateReloadService: Service {
    /// One thing to reload: a name for the log (`listener`, `upstreams`, `http`, ...) and what reads its files again,
    /// throwing (and keeping what it had) when they cannot be used.
    public typealias Reloadable = (name: String, reload: @Sendable () throws -> Void)

    /// What to reload, in order.
    public let reloadables: [Reloadable]
    private let logger: Logger

    /// Reloads `reloadables` on SIGHUP.
    public init(reloadables: [Reloadable], logger: Logger) {
        self.reloadables = reloadables
        self.logger = logger
    }

    /// Reloads `contexts` on SIGHUP.
    public init(contexts: [(name: String, context: ReloadableTLSContext)], logger: Logger) {
        self.init(reloadables: contexts.map { entry in (entry.name, entry.context.reload) }, logger: logger)
    }

    public func run() async throws {
        let signals = await UnixSignalsSequence(trapping: .sighup)
        for await _ in signals.cancelOnGracefulShutdown() {
            reloadAll()
        }
    }

    /// Reloads everything once, logging the outcome of each.
    public func reloadAll() {
        for (name, reload) in reloadables {
            do {
                try reload()
                logger.info("reloaded TLS certificates", metadata: ["tls.context": "\(name)"])
            } catch {
                logger.error(
                    "TLS reload failed; keeping the previous certificates",
                    metadata: ["tls.context": "\(name)", "error": "\(error)"]
                )
            }
        }
    }
}
