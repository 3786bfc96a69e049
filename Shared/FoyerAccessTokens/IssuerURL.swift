public import Foundation

/// The rule for the issuer access tokens name (`iss`), shared by identity, which writes it, and the gateway, which
/// checks it and publishes it as the discovery document's `issuer`.
///
/// OpenID Connect Discovery §3 makes the issuer an https URL without query or fragment, and strict verifiers
/// compare it byte for byte and fetch `<issuer>/.well-known/openid-configuration`. So: an absolute `https` URL with
/// a host, no user, query or fragment, and no trailing slash (`https://auth.example.com`, or with a path
/// `https://example.com/auth`); `http` only when the host is a loopback address (`127.0.0.0/8`, `::1`, `localhost`),
/// for a stack on a developer's machine, where no one can intercept the discovery document.
public enum IssuerURL {
    /// Nil when `issuer` follows the rule; otherwise what is wrong with it, for the error that stops the start.
    public static func problem(with issuer: String) -> String? {
        guard let components = URLComponents(string: issuer), let scheme = components.scheme?.lowercased(),
            let host = components.host, !host.isEmpty
        else {
            return "the issuer \(issuer) is not an absolute URL with a host, such as https://auth.example.com"
        }
        guard scheme == "https" || (scheme == "http" && isLoopback(host)) else {
            return "the issuer \(issuer) must be an https URL (http only for a loopback host such as 127.0.0.1)"
        }
        guard components.user == nil, components.password == nil, components.query == nil,
            components.fragment == nil
        else {
            return "the issuer \(issuer) must have no user, query or fragment"
        }
        guard !issuer.hasSuffix("/") else {
            return "the issuer \(issuer) must not end with a slash: verifiers compare it byte for byte"
        }
        return nil
    }

    /// Whether `host` (as `URLComponents` gives it, an IPv6 address with or without its brackets) names this machine.
    static func isLoopback(_ host: String) -> Bool {
        let lowered = host.lowercased()
        if lowered == "localhost" || lowered == "::1" || lowered == "[::1]" { return true }
        let octets = lowered.split(separator: ".", omittingEmptySubsequences: false)
        return octets.count == 4 && octets[0] == "127" && octets.allSatisfy { UInt8($0) != nil }
    }
}
