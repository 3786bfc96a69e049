import Foundation
import FoyerAPI
import FoyerClient
import FoyerCrypto
import FoyerStackProcesses
import FoyerTestSupport
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The sign-up check through the real executables: a gateway started with `--sign-up-check proof-of-work` refuses
/// guest sign-ups without a solved challenge, before admission spends anything, on both transports.
@Suite("The sign-up check (real executables)")
struct SignUpCheckTests {
    private static func options(_ engine: TestEngine) -> RunningStackOptions {
        var options = RunningStackOptions()
        options.engine = engine
        options.gatewayHTTP = true
        options.metrics = true
        options.environment = [
            .gateway: ["FOYER_SIGN_UP_CHECK": "proof-of-work", "FOYER_SIGN_UP_DIFFICULTY": "10"]
        ]
        return options
    }

    @Test(
        "refused without a proof or with a spent one, spending nothing; admitted with a solved challenge",
        arguments: TestEngine.allCases
    )
    func proofOfWork(engine: TestEngine) async throws {
        try await withRunningStack(Self.options(engine)) { stack in
            // Refusals over the binary protocol: no proof (a released client), and a proof that solves nothing.
            try await stack.withClient { client in
                #expect(await foyerFailure { try await client.signInAsGuest() } == .signUpCheckRequired)
                let challenge = try await client.signUpChallenge()
                #expect(challenge.difficulty == 10)
                #expect(challenge.challenge.count == 58)
                let unsolved = await foyerFailure {
                    try await client.signInAsGuest(signUpCheck: .siteverify(token: "not the check's kind"))
                }
                #expect(unsolved == .signUpCheckRequired)
            }
            #expect(try await stack.databases.signUpTraces() == (0, 0, 0), "a refused sign-up spent something")

            // Admitted once the client solves a challenge.
            let guest = try await stack.withClient { client in
                try await client.signInAsGuest(signUpCheck: .proofOfWork)
            }
            #expect(guest.isAnonymous)
            #expect(try await stack.databases.signUpTraces() == (1, 1, 1))

            // Over HTTP: 403 without a proof, then a challenge, a solution, and a guest.
            let base = stack.httpBaseURL
            let refused = try await Self.post(base + "/v1/guests", body: nil)
            #expect(refused.status == 403)
            #expect(refused.json["code"] as? String == "sign-up-check-required")
            let issued = try await Self.post(base + "/v1/sign-up-challenges", body: nil, key: false)
            #expect(issued.status == 200)
            let text = try #require(issued.json["challenge"] as? String)
            let bytes = try #require(try? Base64URL.decode(text))
            let challenge = SignUpChallenge(
                challenge: bytes,
                difficulty: UInt8(try #require(issued.json["difficulty"] as? Int)),
                expiresAtMilliseconds: 0
            )
            let nonce = try #require(FoyerClient.solve(challenge))
            let proof: [String: Any] = [
                "type": "proofOfWork", "challenge": text, "nonce": Base64URL.encode(nonce),
            ]
            // A nonce that does not solve it (found by trying, as the one byte 0 may by chance).
            let wrongNonce = try #require(
                (0...255).map { [UInt8($0)] }.first { !ProofOfWork.meets(SHA256.hash(bytes + $0), difficulty: 10) }
            )
            let wrong: [String: Any] = [
                "type": "proofOfWork", "challenge": text, "nonce": Base64URL.encode(wrongNonce),
            ]
            let failed = try await Self.post(base + "/v1/guests", body: ["signUpProof": wrong])
            #expect(failed.status == 403)
            #expect(failed.json["code"] as? String == "sign-up-check-failed")
            let admitted = try await Self.post(base + "/v1/guests", body: ["signUpProof": proof])
            #expect(admitted.status == 201, "\(admitted.json)")
            // The same challenge under another Idempotency-Key is spent.
            let spent = try await Self.post(base + "/v1/guests", body: ["signUpProof": proof])
            #expect(spent.status == 403)
            #expect(spent.json["code"] as? String == "sign-up-check-failed")
            #expect(try await stack.databases.signUpTraces().users == 2)

            // The gateway counted each outcome: 2 missing (binary, then HTTP) + 1 of another kind, 2 refused, 2 passed.
            let scrape = try MetricsScrape.exchange(port: stack.processes.metricsPort(of: .gateway))
            let checks = "foyer_gateway_sign_up_checks_total"
            #expect(scrape.sample(checks, #"check="proof-of-work",outcome="missing""#) == 3)
            #expect(scrape.sample(checks, #"check="proof-of-work",outcome="refused""#) == 2)
            #expect(scrape.sample(checks, #"check="proof-of-work",outcome="passed""#) == 2)
            #expect(scrape.sample("foyer_gateway_sign_up_challenges_total") == 3)
        }
    }

    /// POSTs `body` (JSON) with a fresh `Idempotency-Key` unless `key` is false; the status and the JSON answer.
    private static func post(
        _ url: String,
        body: [String: Any]?,
        key: Bool = true
    ) async throws -> (status: Int, json: [String: Any]) {
        var request = URLRequest(url: try #require(URL(string: url)))
        request.httpMethod = "POST"
        if key { request.setValue(OperationID.make(), forHTTPHeaderField: "Idempotency-Key") }
        if let body {
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
            request.httpBody = try JSONSerialization.data(withJSONObject: body)
        }
        let (data, response) = try await URLSession.shared.data(for: request)
        let status = (response as? HTTPURLResponse)?.statusCode ?? 0
        return (status, (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] ?? [:])
    }
}
