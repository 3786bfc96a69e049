import FoyerRPC
import FoyerTestSupport
import FoyerWire
import NIOCore
import Testing

@Suite("Cluster-secret authentication")
struct RPCAuthenticationTests {
    @Test("a client with the cluster secret is admitted")
    func rightSecret() async throws {
        try await withRPCServer(testServerConfiguration()) { _, port in
            try await withTestClient(port: port) { client async throws in
                #expect(try await client.call(BuiltinMethods.health, Empty()).state == .serving)
            }
        }
    }

    @Test("a client with another secret, or none, is refused with unavailable")
    func wrongOrMissingSecret() async throws {
        try await withRPCServer(testServerConfiguration()) { _, port in
            for secret in [ClusterSecret.generate(), nil] {
                try await withTestClient(port: port, secret: secret) { client async throws in
                    let error = await #expect(throws: RPCError.self) {
                        try await client.call(
                            BuiltinMethods.health,
                            Empty(),
                            options: CallOptions(timeout: .milliseconds(500))
                        )
                    }
                    #expect(error?.status == .unavailable)
                }
            }
        }
    }

    @Test("a server that asks no proof (the gateway's client port) admits clients without a secret")
    func openListener() async throws {
        try await withRPCServer(testServerConfiguration(secret: nil)) { _, port in
            try await withTestClient(port: port, secret: nil) { client async throws in
                #expect(try await client.call(BuiltinMethods.health, Empty()).state == .serving)
            }
        }
    }

    @Test("a client refuses a server that cannot prove the secret")
    func clientAuthenticatesServer() async throws {
        try await withRPCServer(testServerConfiguration(secret: nil)) { _, port in
            try await withTestClient(port: port, secret: testClusterSecret) { client async throws in
                let error = await #expect(throws: RPCError.self) {
                    try await client.call(
                        BuiltinMethods.health,
                        Empty(),
                        options: CallOptions(timeout: .milliseconds(500))
                    )
                }
                #expect(error?.status == .unavailable)
            }
        }
    }

    @Test("a recorded HELLO played back is refused")
    func replayedHelloRefused() async throws {
        try await withRPCServer(testServerConfiguration()) { _, port in
            let hello = HandshakeTesting.signedHello(secret: testClusterSecret, service: "test")
            let first = try await RawPeer.connect(port: port)
            try await first.sendPrefaceAndHello(hello)
            #expect(try await first.nextFrame()?.type == .helloAck)
            await first.close()

            let replay = try await RawPeer.connect(port: port)
            try await replay.sendPrefaceAndHello(hello)
            let goAway = try await replay.expectGoAway()
            #expect(goAway?.reason == .authenticationFailed)
            #expect(goAway?.message.contains("already used") == true)
        }
    }

    @Test("a HELLO with a stale timestamp is refused")
    func staleHelloRefused() async throws {
        try await withRPCServer(testServerConfiguration()) { _, port in
            let stale = HandshakeTesting.signedHello(
                secret: testClusterSecret,
                service: "test",
                clockSkewMilliseconds: -120_000
            )
            let peer = try await RawPeer.connect(port: port)
            try await peer.sendPrefaceAndHello(stale)
            #expect(try await peer.expectGoAway()?.reason == .authenticationFailed)
        }
    }

    @Test("a HELLO for another service is refused")
    func wrongService() async throws {
        try await withRPCServer(testServerConfiguration(service: "identity")) { _, port in
            try await withTestClient(port: port, service: "user-data") { client async throws in
                let error = await #expect(throws: RPCError.self) {
                    try await client.call(
                        BuiltinMethods.health,
                        Empty(),
                        options: CallOptions(timeout: .milliseconds(500))
                    )
                }
                #expect(error?.message.contains("not user-data") == true)
            }
        }
    }

    @Test("the cluster secret's text form round-trips and short secrets are refused")
    func secretText() throws {
        let secret = ClusterSecret.generate()
        #expect(try ClusterSecret(text: secret.text + "\n").text == secret.text)
        #expect(throws: RPCError.self) { try ClusterSecret(bytes: Array(repeating: 1, count: 16)) }
        #expect(throws: RPCError.self) { try ClusterSecret(text: "not base64 !") }
    }
}
