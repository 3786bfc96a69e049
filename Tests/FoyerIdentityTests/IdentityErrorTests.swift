import FoyerAPI
import FoyerRPC
import FoyerWire
import NIOCore
import Testing

@testable import FoyerIdentity

@Suite("Identity's refusals map to their wire statuses in one place")
struct IdentityErrorTests {
    /// One refusal of every code with the status it has always been answered with.
    static let expected: [(IdentityError, RPCStatus)] = [
        (.invalidArgument("bad"), .invalidArgument),
        (.sessionNotFound(), .notFound),
        (.changedConcurrently("the address was claimed concurrently; try again"), .unavailable),
        (.notFound("no such admin key"), .notFound),
        (.adminKeyRefused(), .unauthenticated),
        (.tooManyAdminKeys(), .resourceExhausted),
        (.invalidToken(), IdentityStatus.invalidToken),
        (.tokenExpired(), IdentityStatus.tokenExpired),
        (.tokenRevoked(), IdentityStatus.tokenRevoked),
        (.wrongIssuer(), IdentityStatus.wrongIssuer),
        (.wrongAudience(), IdentityStatus.wrongAudience),
        (.unsupportedAlgorithm("none"), IdentityStatus.unsupportedAlgorithm),
        (.unknownKeyID("no kid"), IdentityStatus.unknownKeyID),
        (.memberRequired("guest"), IdentityStatus.memberRequired),
        (.guestRequired("member"), IdentityStatus.guestRequired),
        (.refreshTokenReused(), IdentityStatus.refreshTokenReused),
        (.tokenNotYetValid("future"), IdentityStatus.tokenNotYetValid),
        (.invalidCredentials(), IdentityStatus.invalidCredentials),
        (.tooManyAttempts(retryAfter: .seconds(3)), IdentityStatus.tooManyAttempts),
        (.invalidEmail(), IdentityStatus.invalidEmail),
        (.weakPassword("short"), IdentityStatus.weakPassword),
        (.tokenAlreadyUsed(), IdentityStatus.tokenAlreadyUsed),
        (.verifierMismatch(), IdentityStatus.verifierMismatch),
        (.nonceMismatch("mismatch"), IdentityStatus.nonceMismatch),
        (.nonceAlreadyUsed("used"), IdentityStatus.nonceAlreadyUsed),
        (.providerNotConfigured(.apple), IdentityStatus.providerNotConfigured),
        (.emailAlreadyInUse(), IdentityStatus.emailAlreadyInUse),
        (.providerAlreadyLinked("linked"), IdentityStatus.providerAlreadyLinked),
        (.deviceKeyOfAnotherUser(), IdentityStatus.credentialAlreadyInUse),
        (.ticketInvalid(), IdentityStatus.ticketInvalid),
        (.userNotFound(), IdentityStatus.userNotFound),
        (.accountNotActive("deleting"), IdentityStatus.accountNotActive),
        (.operationConflict("busy"), IdentityStatus.operationConflict),
        (.guestStillActive(), IdentityStatus.guestStillActive),
        (.idempotencyKeyReused("reused"), IdentityStatus.idempotencyKeyReused),
        (.outboxDisabled(), IdentityStatus.outboxDisabled),
        (.recentSignInRequired(), IdentityStatus.recentSignInRequired),
        (.lastCredential(), IdentityStatus.lastCredential),
        (.credentialNotFound("none"), IdentityStatus.credentialNotFound),
        (.providerUnavailable(), IdentityStatus.providerUnavailable),
        (.passwordHashingBusy(), IdentityStatus.passwordHashingBusy),
        (.mailUnavailable("down"), IdentityStatus.mailUnavailable),
        (.appleUnavailable("down"), IdentityStatus.appleUnavailable),
    ]

    @Test("Every code is answered with its status and the refusal's message")
    func everyCodeHasItsStatus() {
        #expect(Set(Self.expected.map(\.0.code)) == Set(IdentityError.Code.allCases))
        for (error, status) in Self.expected {
            let rpcError = IdentityRoutes.rpcError(error)
            #expect(rpcError.status == status, "\(error.code)")
            #expect(rpcError.message == error.message)
        }
    }

    @Test("The retry-after hint travels with the status; no refusal carries details (a conflict is an answer)")
    func detailsAndRetryAfter() {
        #expect(IdentityRoutes.rpcError(.emailAlreadyInUse()).details.readableBytes == 0)
        #expect(IdentityRoutes.rpcError(.emailAlreadyInUse()).message == "the email belongs to another account")
        #expect(IdentityRoutes.rpcError(.tooManyAttempts(retryAfter: .seconds(3))).retryAfterMilliseconds == 3000)
        #expect(IdentityRoutes.rpcError(.passwordHashingBusy()).retryAfterMilliseconds == 250)
        #expect(IdentityRoutes.rpcError(.userNotFound()).retryAfterMilliseconds == 0)
    }

    @Test("Two refusals are equal when their codes are")
    func equalityIsOnTheCode() {
        #expect(IdentityError.weakPassword("short") == .weakPassword("too common"))
        #expect(IdentityError.tokenExpired() != .tokenRevoked())
    }
}
