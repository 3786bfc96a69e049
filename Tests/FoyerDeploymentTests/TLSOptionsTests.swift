import FoyerRPC
import FoyerServiceKit
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The listener's certificate and key every executable takes as flags or from the environment.
@Suite("Service options: TLS certificate and key", .serialized)
struct TLSOptionsTests {
    static let variables = ["FOYER_TLS_CERTIFICATE", "FOYER_TLS_KEY", "FOYER_TLS_CA"]

    /// Runs `body` with the variables set as given (and unset otherwise), then unsets them.
    static func withEnvironment(_ values: [String: String], _ body: () throws -> Void) throws {
        for name in variables { unsetenv(name) }
        for (name, value) in values { setenv(name, value, 1) }
        defer { for name in variables { unsetenv(name) } }
        try body()
    }

    @Test("without a certificate the listener is plaintext")
    func plaintextByDefault() throws {
        try Self.withEnvironment([:]) {
            let tls = try ServiceOptions.parse([]).resolvedTLS()
            #expect(tls == nil)
        }
    }

    @Test("flags win over the environment")
    func precedence() throws {
        try Self.withEnvironment(["FOYER_TLS_CERTIFICATE": "env.pem", "FOYER_TLS_KEY": "env-key.pem"]) {
            let fromEnvironment = try ServiceOptions.parse([]).resolvedTLS()
            #expect(fromEnvironment == TLSSettings(certificatePath: "env.pem", keyPath: "env-key.pem"))
            let fromFlag = try ServiceOptions.parse(["--tls-certificate", "flag.pem"]).resolvedTLS()
            #expect(fromFlag == TLSSettings(certificatePath: "flag.pem", keyPath: "env-key.pem"))
        }
    }

    @Test("a certificate without a key, or a key without a certificate, is refused")
    func halfGiven() throws {
        try Self.withEnvironment([:]) {
            #expect(throws: (any Error).self) {
                try ServiceOptions.parse(["--tls-certificate", "a.pem"]).resolvedTLS()
            }
            #expect(throws: (any Error).self) { try ServiceOptions.parse(["--tls-key", "a-key.pem"]).resolvedTLS() }
        }
        try Self.withEnvironment(["FOYER_TLS_KEY": "a-key.pem"]) {
            #expect(throws: (any Error).self) { try ServiceOptions.parse([]).resolvedTLS() }
        }
    }

    @Test("--tls-ca becomes the listener's client CA, and needs a certificate and key")
    func clusterCA() throws {
        try Self.withEnvironment(["FOYER_TLS_CA": "ca.pem"]) {
            let tls = try ServiceOptions.parse(["--tls-certificate", "a.pem", "--tls-key", "a-key.pem"]).resolvedTLS()
            #expect(tls == TLSSettings(certificatePath: "a.pem", keyPath: "a-key.pem", clientCAPath: "ca.pem"))
            #expect(throws: (any Error).self) { try ServiceOptions.parse([]).resolvedTLS() }
        }
        try Self.withEnvironment([:]) {
            #expect(throws: (any Error).self) { try ServiceOptions.parse(["--tls-ca", "ca.pem"]).resolvedTLS() }
        }
    }
}
