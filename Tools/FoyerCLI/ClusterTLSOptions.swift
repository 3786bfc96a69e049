import ArgumentParser
import FoyerClient
import FoyerRPC

/// How the operator commands (`foyer outbox`, `foyer cleanup`, `foyer admin`) reach an internal service that speaks
/// TLS: the cluster's CA to verify it, and a client certificate for a service that demands one (`--tls-ca` on the
/// service).
struct ClusterTLSOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "The cluster's CA (PEM): speak TLS to the service and verify its certificate against it. (env: FOYER_TLS_CA; default: none, plaintext)",
            valueName: "file"
        )
    )
    var tlsCa: String?

    @Option(
        help: ArgumentHelp(
            "A client certificate signed by the cluster's CA (PEM chain), for services with mutual TLS; needs --tls-ca and --tls-key. (env: FOYER_TLS_CERTIFICATE; default: none)",
            valueName: "file"
        )
    )
    var tlsCertificate: String?

    @Option(
        help: ArgumentHelp(
            "The private key of --tls-certificate (PEM). (env: FOYER_TLS_KEY; default: none)",
            valueName: "file"
        )
    )
    var tlsKey: String?

    /// The TLS to dial with; `nil` (plaintext) without a CA.
    /// - Throws: `invalid-input` when only one of certificate and key is given, or either without a CA.
    func resolved() throws(FoyerError) -> RPCClientTLS? {
        let ca = tlsCa ?? GlobalOptions.environment("FOYER_TLS_CA")
        let certificate = tlsCertificate ?? GlobalOptions.environment("FOYER_TLS_CERTIFICATE")
        let key = tlsKey ?? GlobalOptions.environment("FOYER_TLS_KEY")
        switch (ca, certificate, key) {
        case (nil, nil, nil):
            return nil
        case (let ca?, nil, nil):
            return RPCClientTLS(trustRoots: .caFile(ca))
        case (let ca?, let certificate?, let key?):
            return RPCClientTLS(
                trustRoots: .caFile(ca),
                certificate: TLSSettings(certificatePath: certificate, keyPath: key)
            )
        default:
            throw .invalidInput("--tls-certificate and --tls-key go together, and need --tls-ca")
        }
    }
}
