public import FoyerRPC
import NIOCore
import NIOSSL
import Synchronization

/// The HTTPS listener's certificate chain and key, read from their files and read again on ``reload()``: the
/// listener's TLS configuration (``serverConfiguration()``) asks it for the current pair on every client hello, so a
/// new connection gets the files as they were at the last good reload and an open one keeps what it started with.
/// A pair is taken only once a server context builds with it (the key matches the leaf); a reload that fails (a file
/// missing or unreadable, a key that does not match) throws and leaves the previous pair in use.
public final class ReloadableServerCertificate: Sendable {
    /// The files, and the listener's TLS settings (TLS 1.2 and 1.3).
    public let settings: TLSSettings
    /// The configuration of the last good read: its chain and key are the ones served.
    private let configuration: Mutex<TLSConfiguration>

    /// Reads and checks the files now.
    /// - Throws: `RPCError` `.invalidArgument` when a file cannot be read or the key does not match the certificate.
    public init(_ settings: TLSSettings) throws {
        self.settings = settings
        self.configuration = Mutex(try Self.read(settings))
    }

    /// Reads and checks the files again; on success new connections get the new pair, on failure the old one stays.
    /// - Throws: `RPCError` `.invalidArgument` when a file cannot be read or the key does not match the certificate.
    public func reload() throws {
        let fresh = try Self.read(settings)
        configuration.withLock { $0 = fresh }
    }

    /// The listener's TLS configuration: the settings' (TLS 1.2 and 1.3; the caller adds ALPN), with a callback that
    /// puts the current chain and key in every handshake.
    func serverConfiguration() -> TLSConfiguration {
        var served = configuration.withLock { $0 }
        served.sslContextCallback = { [self] _, promise in
            let current = configuration.withLock { $0 }
            var override = NIOSSLContextConfigurationOverride()
            override.certificateChain = current.certificateChain
            override.privateKey = current.privateKey
            promise.succeed(override)
        }
        return served
    }

    /// The server configuration of `settings`, read now, once a context builds with it.
    private static func read(_ settings: TLSSettings) throws -> TLSConfiguration {
        let configuration = try settings.makeServerConfiguration()
        do {
            _ = try NIOSSLContext(configuration: configuration)
        } catch {
            throw RPCError(
                .invalidArgument,
                "cannot use the TLS certificate '\(settings.certificatePath)' with the key '\(settings.keyPath)': \(error)"
            )
        }
        return configuration
    }
}
