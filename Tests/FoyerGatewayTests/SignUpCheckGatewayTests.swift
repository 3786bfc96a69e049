import Foundation
import FoyerAPI
import FoyerCrypto
import FoyerRPC
import FoyerTestSupport
import FoyerWire
import Testing

@testable import FoyerGateway

/// The sign-up check in the gateway's guest sign-in, against fakes of the services: what a refusal spends.
@Suite("The sign-up check in guest sign-in")
struct SignUpCheckGatewayTests {
    private static let guestKey = "BBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB"

    private static func fakes() throws -> FakeServices {
        var fakes = try FakeServices()
        fakes.guestQuota.handle(GuestQuotaMethods.admitSignup) { _ in
            AdmitSignupResponse(remainingForSource: 9, liveGuests: 1, liveGuestsMax: 100)
        }
        fakes.identity.handle(IdentityMethods.createGuest) { request in
            SessionTokens(
                uid: request.uid ?? "",
                isAnonymous: true,
                sessionID: "s",
                accessToken: "a",
                accessTokenExpiresAtMilliseconds: 1,
                refreshToken: "r",
                refreshTokenExpiresAtMilliseconds: 1
            )
        }
        return fakes
    }

    private static func proofOfWork(_ configuration: inout GatewayConfiguration) {
        var settings = ProofOfWorkSettings()
        settings.difficulty = 8
        configuration.signUpCheck = .proofOfWork(settings)
    }

    private static func solve(_ challenge: SignUpChallenge) -> [UInt8] {
        var counter: UInt64 = 0
        while !ProofOfWork.meets(
            SHA256.hash(challenge.challenge + ProofOfWork.nonce(counter)),
            difficulty: Int(challenge.difficulty)
        ) { counter += 1 }
        return ProofOfWork.nonce(counter)
    }

    @Test("Without a proof, with a wrong one or with a reused one, nothing reaches guest-quota or identity")
    func refusalsSpendNothing() async throws {
        let fakes = try Self.fakes()
        try await fakes.withGateway(adjust: Self.proofOfWork) { gateway in
            let missing = await #expect(throws: RPCError.self) {
                try await gateway.call(GatewayMethods.guestSignIn, GuestSignInRequest(idempotencyKey: Self.guestKey))
            }
            #expect(missing?.status == GatewayStatus.signUpCheckRequired)
            let none = await #expect(throws: RPCError.self) {
                try await gateway.call(
                    GatewayMethods.guestSignInWithCheck,
                    CheckedGuestSignInRequest(idempotencyKey: Self.guestKey, proof: nil)
                )
            }
            #expect(none?.status == GatewayStatus.signUpCheckRequired)
            let challenge = try await gateway.call(GatewayMethods.signUpChallenge, Empty())
            #expect(challenge.difficulty == 8)
            let forged = await #expect(throws: RPCError.self) {
                try await gateway.call(
                    GatewayMethods.guestSignInWithCheck,
                    CheckedGuestSignInRequest(
                        idempotencyKey: Self.guestKey,
                        proof: .proofOfWork(challenge: Array(challenge.challenge.reversed()), nonce: [0])
                    )
                )
            }
            #expect(forged?.status == GatewayStatus.signUpCheckFailed)
            #expect(fakes.log.names.isEmpty)

            let proof = SignUpProof.proofOfWork(challenge: challenge.challenge, nonce: Self.solve(challenge))
            let session = try await gateway.call(
                GatewayMethods.guestSignInWithCheck,
                CheckedGuestSignInRequest(idempotencyKey: Self.guestKey, proof: proof)
            )
            #expect(fakes.log.names == ["guest-quota.admitSignup", "identity.createGuest"])
            #expect(CreateGuestRequest.isNewUID(session.uid))
            let reused = await #expect(throws: RPCError.self) {
                try await gateway.call(
                    GatewayMethods.guestSignInWithCheck,
                    CheckedGuestSignInRequest(idempotencyKey: "CCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCC", proof: proof)
                )
            }
            #expect(reused?.status == GatewayStatus.signUpCheckFailed)
            #expect(fakes.log.names.count == 2)
        }
    }

    @Test("With the check none, both methods sign in without a proof and signUpChallenge is failed-precondition")
    func noCheck() async throws {
        let fakes = try Self.fakes()
        try await fakes.withGateway { gateway in
            _ = try await gateway.call(GatewayMethods.guestSignIn, GuestSignInRequest(idempotencyKey: Self.guestKey))
            _ = try await gateway.call(
                GatewayMethods.guestSignInWithCheck,
                CheckedGuestSignInRequest(idempotencyKey: Self.guestKey, proof: .siteverify(token: "ignored"))
            )
            let refusal = await #expect(throws: RPCError.self) {
                try await gateway.call(GatewayMethods.signUpChallenge, Empty())
            }
            #expect(refusal?.status == .failedPrecondition)
        }
    }

    @Test("One source's checked sign-ups take its sign-in limit before the verifier is called")
    func checksAreLimitedPerSource() async throws {
        let fakes = try Self.fakes()
        try await withLoopbackHTTPServer({ _ in
            LoopbackHTTPServer.Response(
                headers: ["content-type": "application/json"],
                body: Array(#"{"success":false,"error-codes":["invalid-input-response"]}"#.utf8)
            )
        }) { server in
            let url = URL(string: server.url("/siteverify"))!
            try await fakes.withGateway(adjust: {
                $0.signUpCheck = .siteverify(SiteverifySettings(url: url, secret: "secret"))
                $0.sourceLimits.signIn = RateLimit(perMinute: 1, burst: 2)
            }) { gateway in
                var statuses: [RPCStatus] = []
                for _ in 0..<3 {
                    let refusal = await #expect(throws: RPCError.self) {
                        try await gateway.call(
                            GatewayMethods.guestSignInWithCheck,
                            CheckedGuestSignInRequest(idempotencyKey: Self.guestKey, proof: .siteverify(token: "bogus"))
                        )
                    }
                    statuses += refusal.map { [$0.status] } ?? []
                }
                #expect(
                    statuses == [
                        GatewayStatus.signUpCheckFailed, GatewayStatus.signUpCheckFailed, GatewayStatus.rateLimited,
                    ]
                )
                #expect(server.requests.count == 2)
                #expect(fakes.log.names.isEmpty)
            }
        }
    }

    @Test("A siteverify verifier that cannot be reached answers unavailable and admits nothing")
    func verifierUnreachable() async throws {
        let fakes = try Self.fakes()
        let server = try await LoopbackHTTPServer.start { _ in .init() }
        let url = URL(string: server.url("/siteverify"))!
        try await server.stop()
        try await fakes.withGateway(adjust: {
            $0.signUpCheck = .siteverify(SiteverifySettings(url: url, secret: "secret"))
        }) { gateway in
            let refusal = await #expect(throws: RPCError.self) {
                try await gateway.call(
                    GatewayMethods.guestSignInWithCheck,
                    CheckedGuestSignInRequest(idempotencyKey: Self.guestKey, proof: .siteverify(token: "t"))
                )
            }
            #expect(refusal?.status == .unavailable)
            #expect(fakes.log.names.isEmpty)
        }
    }
}
