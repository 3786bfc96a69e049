import Foundation
import FoyerAPI
import FoyerCrypto
import FoyerIdentity
import FoyerRPC
import FoyerTestSupport
import FoyerWire
import Testing

@Suite("Guest sign-in keys: 128 random bits, and replays beside the first session")
struct GuestKeyTests {
    @Test("Keys must have the form of 128 random bits: 22–128 base64url characters, not a UUID")
    func keyForm() {
        let accepted = [
            Base64URL.encode(SecureRandom.bytes(count: 16)), String(repeating: "A", count: 22),
            String(repeating: "a", count: 128), "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_",
        ]
        for key in accepted { #expect(CreateGuestRequest.isAcceptableIdempotencyKey(key), "\(key)") }
        let refused = [
            "", String(repeating: "A", count: 21), String(repeating: "a", count: 129),
            Base64URL.encode(SecureRandom.bytes(count: 15)),  // 20 characters: 120 bits
            UUID().uuidString, UUID().uuidString.lowercased(),  // 122 random bits at best
            "AAAAAAAAAAAAAAAAAAAAAA==",  // padded base64
            "AAAAAAAAAAAAAAAAAAAA+/AA",  // base64's alphabet, not base64url's
            "AAAAAAAAAA AAAAAAAAAAAA", "AAAAAAAAAAAAAAAAAAAAAAÄ",
        ]
        for key in refused { #expect(!CreateGuestRequest.isAcceptableIdempotencyKey(key), "\(key)") }
    }

    @Test(
        "A key of the wrong form is refused with invalid-argument, before anything is stored",
        arguments: [TestEngine.sqlite]
    )
    func refusedOverRPC(engine: TestEngine) async throws {
        try await withIdentity(engine) { identity in
            for key in [String(repeating: "k", count: 16), String(repeating: "k", count: 21), UUID().uuidString] {
                // The client sends any key; identity's decoder of the message refuses it.
                #expect(
                    await identity.status(IdentityMethods.createGuest, CreateGuestRequest(idempotencyKey: key))
                        == .invalidArgument
                )
            }
            #expect(try await identity.count("identity_users") == 0)
            _ = try await identity.call(
                IdentityMethods.createGuest,
                CreateGuestRequest(idempotencyKey: String(repeating: "k", count: 22))
            )
        }
    }

    @Test(
        "Replays of a key make sessions beside the first, all live, up to the cap; past it the key is refused",
        arguments: TestEngine.allCases
    )
    func replayCap(engine: TestEngine) async throws {
        try await withIdentity(engine, configure: { $0.guestKeySessionsMax = 3 }) { identity in
            let key = randomKey()
            var sessions: [SessionTokens] = []
            for _ in 0..<3 {
                sessions.append(
                    try await identity.call(IdentityMethods.createGuest, CreateGuestRequest(idempotencyKey: key))
                )
            }
            #expect(Set(sessions.map(\.uid)).count == 1 && Set(sessions.map(\.sessionID)).count == 3)
            let error = try await rpcError {
                try await identity.call(IdentityMethods.createGuest, CreateGuestRequest(idempotencyKey: key))
            }
            #expect(error.status == IdentityStatus.idempotencyKeyReused)
            #expect(error.message.contains("made its 3 sessions"))
            for session in sessions {
                _ = try await identity.call(
                    IdentityMethods.refreshSession,
                    RefreshSessionRequest(refreshToken: session.refreshToken)
                )
            }
            #expect(try await identity.count("identity_sessions", where: "uid", is: sessions[0].uid) == 3)
            // Another key is another guest.
            let other = try await identity.newGuest()
            #expect(other.uid != sessions[0].uid)
        }
    }
}
