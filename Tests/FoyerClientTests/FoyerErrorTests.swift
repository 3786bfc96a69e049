import FoyerAPI
import FoyerBase64URL
import FoyerClient
import FoyerRPC
import FoyerWire
import NIOCore
import Testing

@Suite("FoyerError")
struct FoyerErrorTests {
    @Test("Equality looks at the code only")
    func equalityOnCode() {
        let denied = FoyerError(RPCError(GuestQuotaStatus.quotaExceeded, "no more"))
        #expect(denied == .quotaExceeded)
        #expect(denied != .membersOnly)
        #expect(FoyerError.notSignedIn("x") == .notSignedIn)
        #expect(FoyerError.notSignedIn != .invalidInput)
        #expect(Set([denied, .quotaExceeded]).count == 1)
    }

    @Test("Every part's statuses have their names")
    func names() {
        #expect(FoyerError.quotaExceeded.name == "quota-exceeded")
        #expect(FoyerError.tokenExpired.name == "token-expired")
        #expect(FoyerError.membersOnly.name == "members-only")
        #expect(FoyerError.signInRequired.name == "sign-in-required")
        #expect(FoyerError.versionMismatch.name == "version-mismatch")
        #expect(FoyerError.unavailable.name == "unavailable")
        #expect(FoyerError.notSignedIn.name == "not-signed-in")
        #expect(FoyerStatusNames.name(of: RPCStatus(rawValue: 0x3FFF)) == "status-0x3fff")
        #expect(FoyerError.quotaExceeded.status == GuestQuotaStatus.quotaExceeded)
        #expect(FoyerError.notSignedIn.status == nil)
    }

    @Test("quota-exceeded decodes its counts")
    func quotaDetails() throws {
        let details = QuotaExceededDetails(usage: CounterUsage(counter: "documents", limit: 20, used: 20), requested: 1)
        let error = FoyerError(RPCError(GuestQuotaStatus.quotaExceeded, "no", details: details.encoded()))
        let quota = try #require(error.quotaExceeded)
        #expect(quota.counter == "documents")
        #expect((quota.limit, quota.used, quota.remaining, quota.requested) == (20, 20, 0, 1))
    }

    @Test("A conflict is an answer: its ticket expiry reads as a date; details on an error are never a conflict")
    func conflictDetails() throws {
        let details = ConflictDetails(otherUID: "other", ticket: "t", ticketExpiresAtMilliseconds: 1_700_000_000_000)
        let answer = try LinkResult(decoding: LinkResult.conflict(details).encoded())
        #expect(answer.outcome == .conflict)
        #expect(answer.session == nil)
        #expect(answer.conflict?.ticketExpiresAt.timeIntervalSince1970 == 1_700_000_000)
        // An old server's conflict error keeps its status; its details are ignored, not misread.
        let error = FoyerError(RPCError(IdentityStatus.emailAlreadyInUse, "taken", details: details.encoded()))
        #expect(error == .emailAlreadyInUse)
        #expect(error.quotaExceeded == nil)
        let garbled = FoyerError(RPCError(IdentityStatus.emailAlreadyInUse, "taken", details: ByteBuffer(bytes: [1])))
        #expect(garbled == .emailAlreadyInUse)
    }

    @Test("Rate limits carry retry-after; kinds are classified")
    func kinds() {
        let limited = FoyerError(
            RPCError(GuestQuotaStatus.signupRateLimited, "slow down", retryAfterMilliseconds: 1500)
        )
        #expect(limited.retryAfter == .milliseconds(1500))
        #expect(limited.isRateLimited)
        #expect(FoyerError.unavailable.isUnavailable)
        #expect(FoyerError.tokenRevoked.isAuthenticationFailure)
        #expect(!FoyerError.quotaExceeded.isAuthenticationFailure)
        #expect(FoyerError.internal.outcomeUnknown)
    }

    @Test("An unreachable gateway is unavailable")
    func unreachable() async throws {
        var configuration = FoyerClientConfiguration(host: "127.0.0.1", port: 1)
        configuration.callTimeout = .seconds(2)
        configuration.maxAttempts = 1
        let client = FoyerClient(configuration: configuration)
        let error = await anyError { try await client.signInAsGuest() }
        await client.shutdown()
        #expect(error?.isUnavailable == true)
    }

    @Test("Addresses parse as HOST:PORT, [v6]:PORT or HOST")
    func addresses() throws {
        #expect(try FoyerClientConfiguration(address: "10.0.0.1:7500").port == 7500)
        #expect(try FoyerClientConfiguration(address: "gateway").port == 7400)
        let v6 = try FoyerClientConfiguration(address: "[::1]:7401")
        #expect(v6.host == "::1")
        #expect(v6.address == "[::1]:7401")
        #expect(throws: FoyerError.invalidInput) { try FoyerClientConfiguration(address: "host:notaport") }
        #expect(throws: FoyerError.invalidInput) { try FoyerClientConfiguration(address: ":7400") }
    }

    @Test("Email-link helpers: verifier, challenge, token in a link; ID-token nonce")
    func helpers() throws {
        let verifier = EmailLinkVerifier()
        #expect(verifier.text.count == 43 && verifier.bytes == Array(verifier.text.utf8))
        #expect(verifier.challenge.count == 32)
        #expect(try EmailLinkVerifier(text: verifier.text) == verifier)
        // RFC 7636, appendix B: S256 of the verifier's text.
        let rfc = try EmailLinkVerifier(text: "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk")
        #expect(Base64URL.encode(rfc.challenge) == "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM")
        #expect(throws: FoyerError.invalidInput) { try EmailLinkVerifier(text: "not/base64+") }
        #expect(EmailLinkVerifier.token(fromLink: "foyer://email-link#token=abc_DEF-1") == "abc_DEF-1")
        #expect(EmailLinkVerifier.token(fromLink: "Use this link:\n\nhttps://x/y?token=T1&z=2\n") == "T1")
        #expect(EmailLinkVerifier.token(fromLink: " bare ") == "bare")
        let nonce = IDTokenNonce(raw: "abc")
        #expect(nonce.hashed == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        let cursor = ByteBuffer(bytes: [0xFB, 0xFF, 0x00, 0x01])
        #expect(try PageCursor.cursor(PageCursor.text(cursor)) == cursor)
        #expect(throws: FoyerError.invalidInput) { try PageCursor.cursor("not a cursor!") }
        #expect(OperationID.make().count == 22)
        #expect(OperationID.make() != OperationID.make())
    }
}
