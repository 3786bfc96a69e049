/// TLS for a whole stack (``StackConfiguration/tls``): every service gets the cluster CA (`FOYER_TLS_CA`) and a
/// certificate and key of its own (`FOYER_TLS_CERTIFICATE`, `FOYER_TLS_KEY`), so internal listeners demand client
/// certificates signed by the CA and every upstream is dialled over mutual TLS; the gateway's listener speaks TLS to
/// clients (who verify it against the same CA) without asking them for a certificate.
public struct StackTLS: Sendable, Equatable {
    /// The cluster's CA (PEM).
    public var caFile: String
    /// Each service's certificate chain (PEM, leaf first; fit for serverAuth and clientAuth).
    public var certificateFiles: [StackService: String]
    /// Each service's private key (PEM).
    public var keyFiles: [StackService: String]

    /// - Parameter files: a service's certificate and key files.
    public init(caFile: String, files: (StackService) -> (certificate: String, key: String)) {
        self.caFile = caFile
        var certificates: [StackService: String] = [:]
        var keys: [StackService: String] = [:]
        for service in StackService.allCases {
            let (certificate, key) = files(service)
            certificates[service] = certificate
            keys[service] = key
        }
        self.certificateFiles = certificates
        self.keyFiles = keys
    }

    /// The variables that give `service` its TLS settings.
    func environment(of service: StackService) -> [String: String] {
        var environment = ["FOYER_TLS_CA": caFile]
        environment["FOYER_TLS_CERTIFICATE"] = certificateFiles[service]
        environment["FOYER_TLS_KEY"] = keyFiles[service]
        return environment
    }
}
