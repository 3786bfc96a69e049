import NIOCore
public import NIOSSL

/// A listener's certificate and key (PEM files), as `--tls-certificate` and `--tls-key` give them, and for mutual TLS
/// the CA its peers' certificates must be signed by (`--tls-ca` on an internal service). Any listener of a service
/// can build its TLS configuration from it: the RPC listener through `makeServerContext()`, others (the gateway's
/// HTTP listener) through `makeServerConfiguration()`. A client presents the same certificate and key when it dials
/// a listener that demands one (`RPCClientTLS.certificate`).
public struct TLSSettings: Sendable, Equatable {
    /// The certificate chain, leaf first (PEM).
    public var certificatePath: String
    /// The leaf's private key (PEM, unencrypted).
    public var keyPath: String
    /// The CA (PEM) a listener demands client certificates from: a peer without a certificate signed by it is refused
    /// in the TLS handshake. `nil` (the default): no client certificate is asked for.
    public var clientCAPath: String?

    public init(certificatePath: String, keyPath: String, clientCAPath: String? = nil) {
        self.certificatePath = certificatePath
        self.keyPath = keyPath
        self.clientCAPath = clientCAPath
    }

    /// The certificate chain and key, read from the files now.
    /// - Throws: `RPCError` `.invalidArgument` naming the file that cannot be read.
    func readIdentity() throws -> (chain: [NIOSSLCertificate], key: NIOSSLPrivateKey) {
        let chain: [NIOSSLCertificate]
        do {
            chain = try NIOSSLCertificate.fromPEMFile(certificatePath)
        } catch {
            throw RPCError(.invalidArgument, "cannot read the TLS certificate '\(certificatePath)': \(error)")
        }
        guard !chain.isEmpty else {
            throw RPCError(.invalidArgument, "no certificate in '\(certificatePath)'")
        }
        do {
            return (chain, try NIOSSLPrivateKey(file: keyPath, format: .pem))
        } catch {
            throw RPCError(.invalidArgument, "cannot read the TLS key '\(keyPath)': \(error)")
        }
    }

    /// The TLS 1.2 cipher suites offered, Mozilla's "intermediate" list as BoringSSL has it: forward secrecy (ECDHE)
    /// and AEAD (AES-GCM, ChaCha20-Poly1305) only, so no CBC, no SHA-1 MAC and no static-RSA key exchange. TLS 1.3's
    /// suites are all AEAD and not configurable.
    public static let intermediateCipherSuites = [
        "ECDHE-ECDSA-AES128-GCM-SHA256", "ECDHE-RSA-AES128-GCM-SHA256", "ECDHE-ECDSA-AES256-GCM-SHA384",
        "ECDHE-RSA-AES256-GCM-SHA384", "ECDHE-ECDSA-CHACHA20-POLY1305", "ECDHE-RSA-CHACHA20-POLY1305",
    ].joined(separator: ":")

    /// A server configuration offering TLS 1.2 (with `intermediateCipherSuites` only) and 1.3, with the chain and key
    /// (and the client CA) read from the files now; with `clientCAPath`, a client certificate signed by that CA is
    /// required.
    /// - Throws: `RPCError` `.invalidArgument` naming the file that cannot be read.
    public func makeServerConfiguration() throws -> TLSConfiguration {
        let (chain, key) = try readIdentity()
        var configuration = TLSConfiguration.makeServerConfiguration(
            certificateChain: chain.map { .certificate($0) },
            privateKey: .privateKey(key)
        )
        configuration.minimumTLSVersion = .tlsv12
        configuration.maximumTLSVersion = .tlsv13
        configuration.cipherSuites = Self.intermediateCipherSuites
        if let clientCAPath {
            configuration.trustRoots = .certificates(try Self.readCA(clientCAPath))
            // Clients are not known by name: the chain to the CA is checked, not a host name.
            configuration.certificateVerification = .noHostnameVerification
        }
        return configuration
    }

    /// The context an `RPCServerConfiguration` takes as `tls`, built from the files now and again on every
    /// `reload()` (a service reloads on SIGHUP).
    /// - Throws: `RPCError` `.invalidArgument` when a file cannot be read or the key does not match the certificate.
    public func makeServerContext() throws -> ReloadableTLSContext {
        try ReloadableTLSContext { [self] in
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

    /// The certificates of a CA file (PEM).
    /// - Throws: `RPCError` `.invalidArgument` when the file cannot be read or holds no certificate.
    static func readCA(_ path: String) throws -> [NIOSSLCertificate] {
        do {
            let certificates = try NIOSSLCertificate.fromPEMFile(path)
            guard !certificates.isEmpty else { throw RPCError(.invalidArgument, "no certificate in the file") }
            return certificates
        } catch {
            throw RPCError(.invalidArgument, "cannot read the CA file '\(path)': \(error)")
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
    /// The client certificate and key presented to a server that asks for one (mutual TLS); `nil`: none.
    /// `clientCAPath` is not used here.
    public var certificate: TLSSettings?
    /// When set, each new connection uses this context's current state (see ``ReloadableTLSContext``) instead of a
    /// context built once from the fields above: a service passes one made by ``makeReloadableContext()`` so that
    /// SIGHUP also renews the certificate it dials with.
    public var reloadable: ReloadableTLSContext?

    public init(trustRoots: TrustRoots = .system, serverName: String? = nil, certificate: TLSSettings? = nil) {
        self.trustRoots = trustRoots
        self.serverName = serverName
        self.certificate = certificate
    }

    /// A reloadable context built by ``makeContext()``, now and on every reload.
    /// - Throws: what ``makeContext()`` throws.
    public func makeReloadableContext() throws -> ReloadableTLSContext {
        try ReloadableTLSContext { [self] in try makeContext() }
    }

    /// The client context, with the trust roots read now.
    /// - Throws: `RPCError` `.invalidArgument` when the CA file cannot be read.
    public func makeContext() throws -> NIOSSLContext {
        var configuration = TLSConfiguration.makeClientConfiguration()
        configuration.minimumTLSVersion = .tlsv12
        configuration.maximumTLSVersion = .tlsv13
        configuration.cipherSuites = TLSSettings.intermediateCipherSuites
        switch trustRoots {
        case .system:
            configuration.trustRoots = .default
        case .caFile(let path):
            configuration.trustRoots = .certificates(try TLSSettings.readCA(path))
        case .anyCertificate:
            configuration.certificateVerification = .none
        }
        if let certificate {
            let (chain, key) = try certificate.readIdentity()
            configuration.certificateChain = chain.map { .certificate($0) }
            configuration.privateKey = .privateKey(key)
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
