import NIOCore
public import NIOSSL

/// A listener's certificate and key (PEM files), as `--tls-certificate` and `--tls-key` give them. Any listener of a
/// service can build its TLS configuration from it: the RPC listener through `makeServerContext()`, others (the
/// gateway's HTTP listener) through `makeServerConfiguration()`.
public struct TLSSettings: Sendable, Equatable {
    /// The certificate chain, leaf first (PEM).
    public var certificatePath: String
    /// The leaf's private key (PEM, unencrypted).
    public var keyPath: String

    public init(certificatePath: String, keyPath: String) {
        self.certificatePath = certificatePath
        self.keyPath = keyPath
    }

    /// A server configuration offering TLS 1.2 and 1.3 only, with the chain and key read from the files now.
    /// - Throws: `RPCError` `.invalidArgument` naming the file that cannot be read.
    public func makeServerConfiguration() throws -> TLSConfiguration {
        let chain: [NIOSSLCertificate]
        do {
            chain = try NIOSSLCertificate.fromPEMFile(certificatePath)
        } catch {
            throw RPCError(.invalidArgument, "cannot read the TLS certificate '\(certificatePath)': \(error)")
        }
        guard !chain.isEmpty else {
            throw RPCError(.invalidArgument, "no certificate in '\(certificatePath)'")
        }
        let key: NIOSSLPrivateKey
        do {
            key = try NIOSSLPrivateKey(file: keyPath, format: .pem)
        } catch {
            throw RPCError(.invalidArgument, "cannot read the TLS key '\(keyPath)': \(error)")
        }
        var configuration = TLSConfiguration.makeServerConfiguration(
            certificateChain: chain.map { .certificate($0) },
            privateKey: .privateKey(key)
        )
        configuration.minimumTLSVersion = .tlsv12
        configuration.maximumTLSVersion = .tlsv13
        return configuration
    }

    /// The context an `RPCServerConfiguration` takes as `tls`; built once, at start-up.
    /// - Throws: `RPCError` `.invalidArgument` when a file cannot be read or the key does not match the certificate.
    public func makeServerContext() throws -> NIOSSLContext {
        let configuration = try makeServerConfiguration()
        do {
            return try NIOSSLContext(configuration: configuration)
        } catch {
            throw RPCError(
                .invalidArgument,
                "cannot use the TLS certificate '\(certificatePath)' with the key '\(keyPath)': \(error)"
            )
        }
    }
}

/// How an `RPCClient` speaks TLS to its server (TLS 1.2 or 1.3, the certificate verified against `trustRoots` and
/// `serverName`).
public struct RPCClientTLS: Sendable, Equatable {
    /// Which certificate authorities the client trusts.
    public enum TrustRoots: Sendable, Equatable {
        /// The system's trust store.
        case system
        /// The certificates in a PEM file (a private CA).
        case caFile(String)
        /// No verification at all: only for asking an instance on this host about its health.
        case anyCertificate
    }

    public var trustRoots: TrustRoots
    /// The name sent as SNI and checked against the certificate; `nil`: the configuration's host. A certificate that
    /// names the IP address connected to is accepted too; for an IP address host no SNI is sent.
    public var serverName: String?

    public init(trustRoots: TrustRoots = .system, serverName: String? = nil) {
        self.trustRoots = trustRoots
        self.serverName = serverName
    }

    /// The client context, with the trust roots read now.
    /// - Throws: `RPCError` `.invalidArgument` when the CA file cannot be read.
    public func makeContext() throws -> NIOSSLContext {
        var configuration = TLSConfiguration.makeClientConfiguration()
        configuration.minimumTLSVersion = .tlsv12
        configuration.maximumTLSVersion = .tlsv13
        switch trustRoots {
        case .system:
            configuration.trustRoots = .default
        case .caFile(let path):
            do {
                let certificates = try NIOSSLCertificate.fromPEMFile(path)
                guard !certificates.isEmpty else { throw RPCError(.invalidArgument, "no certificate in the file") }
                configuration.trustRoots = .certificates(certificates)
            } catch {
                throw RPCError(.invalidArgument, "cannot read the CA file '\(path)': \(error)")
            }
        case .anyCertificate:
            configuration.certificateVerification = .none
        }
        do {
            return try NIOSSLContext(configuration: configuration)
        } catch {
            throw RPCError(.invalidArgument, "cannot set up TLS: \(error)")
        }
    }

    /// The SNI name for a connection to `host`: `serverName`, else the host unless it is an IP address.
    func sniName(host: String) -> String? {
        let name = serverName ?? host
        let isAddress = (try? SocketAddress(ipAddress: name, port: 0)) != nil
        return isAddress ? nil : name
    }
}
