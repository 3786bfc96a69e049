import FoyerAPI
import FoyerClient
import Testing

@Suite("FoyerClient's guest sign-in keys")
struct GuestKeyFormTests {
    @Test("The keys FoyerClient makes for guest sign-ins are ones identity accepts: 16 random bytes, base64url")
    func keysQualify() {
        let keys = (0..<1000).map { _ in OperationID.make() }
        #expect(keys.allSatisfy(CreateGuestRequest.isAcceptableIdempotencyKey))
        #expect(keys.allSatisfy { $0.utf8.count == 22 })
        #expect(Set(keys).count == keys.count)
    }
}
