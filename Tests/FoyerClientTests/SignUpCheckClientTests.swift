import Foundation
import FoyerAPI
import FoyerClient
import FoyerCrypto
import FoyerGateway
import Testing

/// `FoyerClient` and `foyer guest` against a gateway that checks sign-ups with proof of work: the client solves
/// the challenge itself, over the binary protocol and over HTTP.
@Suite("Sign-up checks through FoyerClient and foyer")
struct SignUpCheckClientTests {
    private static var options: StackOptions {
        var options = StackOptions()
        var settings = ProofOfWorkSettings()
        settings.difficulty = 8
        options.signUpCheck = .proofOfWork(settings)
        return options
    }

    @Test("Binary and HTTP: refused without a proof, admitted after solving; a challenge's shape")
    func proofOfWork() async throws {
        try await withHTTPEdge(options: Self.options) { edge in
            try await edge.stack.withClient { client in
                await expectError(.signUpCheckRequired) { try await client.signInAsGuest() }
                await expectError(.signUpCheckRequired) {
                    try await client.signInAsGuest(signUpCheck: .siteverify(token: "not the check's kind"))
                }
                let challenge = try await client.signUpChallenge()
                #expect(challenge.difficulty == 8 && challenge.challenge.count == 58)
                let nonce = try #require(FoyerClient.solve(challenge))
                let digest = SHA256.hash(challenge.challenge + nonce)
                #expect(ProofOfWork.leadingZeroBits(digest) >= 8)
                let guest = try await client.signInAsGuest(signUpCheck: .proofOfWork)
                #expect(guest.isAnonymous)
                #expect(try await client.me().user.uid == guest.uid)
            }
            try await edge.withHTTPClient { client in
                await expectError(.signUpCheckRequired) { try await client.signInAsGuest() }
                let challenge = try await client.signUpChallenge()
                #expect(challenge.difficulty == 8 && challenge.challenge.count == 58)
                let guest = try await client.signInAsGuest(signUpCheck: .proofOfWork)
                #expect(try await client.me().user.uid == guest.uid)
            }
        }
    }

    @Test("foyer guest --proof-of-work signs up where a plain foyer guest is refused")
    func commandLine() async throws {
        try await withHTTPEdge(options: Self.options) { edge in
            let session = edge.stack.sessionFile("pow")
            let refused = try await CLI.run(["guest", "--gateway", edge.baseURL, "--session", session])
            #expect(refused.status == 1)
            #expect(refused.stderr.contains("sign-up-check-required"), "\(refused.stderr)")
            let admitted = try await CLI.run([
                "guest", "--gateway", edge.baseURL, "--session", session, "--proof-of-work",
            ])
            #expect(admitted.status == 0, "\(admitted.stderr)")
            #expect(try admitted.output()["isAnonymous"] as? Bool == true)
        }
    }
}
