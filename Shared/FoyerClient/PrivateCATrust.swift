import Foundation

#if canImport(Security)
import Security

/// The certificates of a private CA (`FoyerClientConfiguration.TLS.caFile`) that the HTTPS transport trusts
/// instead of the system's: the server's certificate chain must end at one of them and name the host.
///
/// Apple platforms only (URLSession's server-trust challenge). This code is not compiled by the Linux builds.
struct PrivateCATrust: @unchecked Sendable {  // SecCertificate is immutable and thread-safe
    private let anchors: [SecCertificate]

    /// Reads every `CERTIFICATE` block of a PEM file.
    init(pemFile: String) throws(FoyerError) {
        guard let text = try? String(contentsOfFile: pemFile, encoding: .utf8) else {
            throw .invalidInput("cannot read the CA file \(pemFile)")
        }
        let blocks = text.components(separatedBy: "-----BEGIN CERTIFICATE-----").dropFirst()
        anchors = blocks.compactMap { block in
            guard let body = block.components(separatedBy: "-----END CERTIFICATE-----").first,
                let der = Data(base64Encoded: body, options: .ignoreUnknownCharacters)
            else { return nil }
            return SecCertificateCreateWithData(nil, der as CFData)
        }
        guard !anchors.isEmpty else { throw .invalidInput("no certificate in the CA file \(pemFile)") }
    }

    /// Whether `trust` (the server's chain) is valid for `host` with these anchors only.
    func evaluate(_ trust: SecTrust, host: String) -> Bool {
        SecTrustSetPolicies(trust, SecPolicyCreateSSL(true, host as CFString))
        SecTrustSetAnchorCertificates(trust, anchors as CFArray)
        SecTrustSetAnchorCertificatesOnly(trust, true)
        return SecTrustEvaluateWithError(trust, nil)
    }
}
#else
/// Without Apple's Security framework: swift-corelibs-foundation's URLSession (libcurl) takes no per-session CA
/// and no server-trust challenge, so a private CA cannot be honoured; add it to the system's trust store instead.
struct PrivateCATrust: Sendable {
    init(pemFile: String) throws(FoyerError) {
        throw .invalidInput(
            "a private CA (\(pemFile)) for the HTTPS transport works on Apple platforms only; on Linux add it to the"
                + " system's trust store, or use the binary transport (HOST:PORT with TLS and a CA file)"
        )
    }
}
#endif
