import Foundation
import FoyerClient
import FoyerCrypto
import FoyerStackProcesses
import FoyerStorage
import FoyerTestSupport
import SQLKit
import Testing

/// `foyer admin rotate-keys` (through the gateway's admin API) against the real executables, with identity's keys sealed by a key-encryption key file.
@Suite("Signing-key rotation through the real executables")
struct SigningKeyRotationTests {
    @Test(
        "foyer admin rotate-keys: the gateway accepts the new key's tokens without a restart, the old token still works, the JWKS lists both, the keys stay sealed"
    )
    func rotateKeys() async throws {
        var options = RunningStackOptions()
        options.gatewayAdmin = true
        options.prepare = { directory in
            let file = directory.appendingPathComponent("signing-key-encryption-key")
            let text = Data(SecureRandom.bytes(count: 32)).base64EncodedString() + "\n"
            guard
                FileManager.default.createFile(
                    atPath: file.path,
                    contents: Data(text.utf8),
                    attributes: [.posixPermissions: 0o600]
                )
            else { throw RotationTestFailure("cannot write \(file.path)") }
            return [.identity: ["FOYER_SIGNING_KEY_ENCRYPTION_KEY_FILE": file.path]]
        }
        try await withRunningStack(options) { stack in
            try await stack.withClient { old in
                let oldSession = try await old.signInAsGuest()
                try await old.put("notes", "before", "signed with the first key")
                let oldKeyID = try #require(try JWT.decode(oldSession.accessToken).keyID)

                let output = try await stack.foyer(
                    ["admin", "rotate-keys", "--admin-url", stack.adminBaseURL],
                    environment: ["FOYER_ADMIN_KEY": try await stack.bootstrapAdminKey()]
                )
                let answer = try #require(
                    try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: String],
                    "\(output)"
                )
                let newKeyID = try #require(answer["keyID"])
                #expect(newKeyID != oldKeyID)
                let stored = try await stack.databases.identity.withConnection { sql in
                    try await sql.raw("SELECT kid, kek_id FROM identity_signing_keys").all().map {
                        (
                            try $0.decode(column: "kid", as: String.self),
                            try $0.decode(column: "kek_id", as: String?.self)
                        )
                    }
                }
                #expect(Set(stored.map(\.0)) == [oldKeyID, newKeyID])
                #expect(stored.allSatisfy { $0.1 != nil }, "every key is sealed")

                // The new key is published at once, but the old one signs until the new one's activation delay
                // (120 s) has passed, so no gateway meets a kid it cannot fetch yet.
                try await stack.withClient { early in
                    let session = try await early.signInAsGuest()
                    #expect(try JWT.decode(session.accessToken).keyID == oldKeyID)
                    try await early.put("notes", "early", "signed with the first key after the rotation")
                }
                try stack.setClockOffset(seconds: 121)
                try await stack.withClient { fresh in
                    let session = try await fresh.signInAsGuest()
                    #expect(try JWT.decode(session.accessToken).keyID == newKeyID)
                    try await fresh.put("notes", "after", "signed with the new key")
                    #expect(try await fresh.get("notes", "after")?.text == "signed with the new key")
                    #expect(await fresh.session?.accessToken == session.accessToken, "no refresh was needed")

                    let published = try JWKSet(json: try await fresh.jwks()).keys.compactMap(\.kid)
                    #expect(Set(published) == [oldKeyID, newKeyID])
                }
                #expect(try await old.get("notes", "before")?.text == "signed with the first key")
                #expect(await old.session?.accessToken == oldSession.accessToken, "the old token itself was accepted")
            }
        }
    }
}

private struct RotationTestFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
