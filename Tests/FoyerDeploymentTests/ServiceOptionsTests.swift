import FoyerServiceKit
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The connection limits every executable takes as a flag or from the environment.
@Suite("Service options: connection limits", .serialized)
struct ServiceOptionsTests {
    static let variables = [
        "FOYER_MAX_CONNECTIONS", "FOYER_MAX_CONNECTIONS_PER_SOURCE", "FOYER_MAX_CONNECTIONS_PER_NETWORK",
    ]

    /// Runs `body` with the limits' environment variables set as given (and unset otherwise), then unsets them.
    static func withEnvironment(_ values: [String: String], _ body: () throws -> Void) rethrows {
        for name in variables { unsetenv(name) }
        for (name, value) in values { setenv(name, value, 1) }
        defer { for name in variables { unsetenv(name) } }
        try body()
    }

    @Test("defaults are the server configuration's: 1024 in all, 64 per source, 256 per IPv6 /48")
    func defaults() throws {
        try Self.withEnvironment([:]) {
            let limits = try ServiceOptions.parse([]).resolvedConnectionLimits()
            #expect(limits.total == 1024 && limits.perSource == 64 && limits.perNetwork == 256)
            let flagged = try ServiceOptions.parse(["--max-connections-per-network", "9"]).resolvedConnectionLimits()
            #expect(flagged.perNetwork == 9)
        }
    }

    @Test("a flag wins over the environment, which wins over the default")
    func precedence() throws {
        try Self.withEnvironment(["FOYER_MAX_CONNECTIONS": "500", "FOYER_MAX_CONNECTIONS_PER_SOURCE": "8"]) {
            let fromEnvironment = try ServiceOptions.parse([]).resolvedConnectionLimits()
            #expect(fromEnvironment.total == 500 && fromEnvironment.perSource == 8)
            let fromFlags = try ServiceOptions.parse(["--max-connections-per-source", "3"]).resolvedConnectionLimits()
            #expect(fromFlags.total == 500 && fromFlags.perSource == 3)
        }
    }

    @Test("zero, negative and non-numeric limits are refused")
    func invalid() throws {
        try Self.withEnvironment([:]) {
            #expect(throws: (any Error).self) {
                try ServiceOptions.parse(["--max-connections-per-source", "0"]).resolvedConnectionLimits()
            }
            #expect(throws: (any Error).self) {
                try ServiceOptions.parse(["--max-connections", "-1"]).resolvedConnectionLimits()
            }
        }
        try Self.withEnvironment(["FOYER_MAX_CONNECTIONS_PER_SOURCE": "many"]) {
            #expect(throws: (any Error).self) { try ServiceOptions.parse([]).resolvedConnectionLimits() }
        }
    }
}
