import FoyerAPI
import FoyerClient
import FoyerTestSupport
import Testing

/// The guest journey through FoyerClient against the gateway's binary listener speaking TLS, with a certificate from
/// a CA made for the test (`scripts/make-dev-certs.sh`).
@Suite("Guest journey over TLS", .timeLimit(.minutes(2)))
struct TLSJourneyTests {
    @Test("A guest signs in, writes and reads a document, and links an email over TLS")
    func guestJourneyOverTLS() async throws {
        let certificates = try DevCertificates.make()
        defer { certificates.remove() }
        var options = StackOptions()
        options.gatewayTLS = certificates.server
        try await withStack(options: options) { stack in
            try await stack.withClient(adjust: { $0.tls = .init(caFile: certificates.caFile) }) { client in
                let guest = try await client.signInAsGuest()
                #expect(guest.isAnonymous)
                try await client.put("notes", "first", "over TLS")
                #expect(try await client.get("notes", "first")?.text == "over TLS")
                let email = uniqueEmail()
                let result = try await client.link(email: email, password: strongPassword)
                #expect(result.outcome == .linked)
                #expect(result.session?.uid == guest.uid)
            }

            // A client that speaks no TLS, or trusts another CA, gets nowhere.
            let other = try DevCertificates.make()
            defer { other.remove() }
            for tls in [nil, FoyerClientConfiguration.TLS(caFile: other.caFile)] {
                _ = try await stack.withClient(adjust: { $0.tls = tls }) { client in
                    await #expect(throws: FoyerError.self) { try await client.signInAsGuest() }
                }
            }
        }
    }

    @Test("foyer takes --tls and --ca-file, or FOYER_TLS=1 and FOYER_CA_FILE, for a gateway speaking TLS")
    func commandLineOverTLS() async throws {
        let certificates = try DevCertificates.make()
        defer { certificates.remove() }
        var options = StackOptions()
        options.gatewayTLS = certificates.server
        try await withStack(options: options) { stack in
            let gateway = ["--gateway", "127.0.0.1:\(stack.gatewayPort)"]
            let withFlag = try await CLI.run(["guest"] + gateway + ["--tls", "--ca-file", certificates.caFile])
            #expect(withFlag.status == 0, "\(withFlag.stderr)")
            #expect(try withFlag.output()["isAnonymous"] as? Bool == true)
            let withEnvironment = try await CLI.run(
                ["guest"] + gateway,
                environment: ["FOYER_TLS": "1", "FOYER_CA_FILE": certificates.caFile]
            )
            #expect(withEnvironment.status == 0, "\(withEnvironment.stderr)")

            // Without TLS, or trusting only the system's CAs, the command fails.
            for extra in [[], ["--tls"]] {
                let refused = try await CLI.run(["guest"] + gateway + extra)
                #expect(refused.status != 0)
                #expect(refused.stdout.isEmpty)
            }
        }
    }
}
