import Foundation
import FoyerAPI
import FoyerCrypto
import FoyerWebhooks
import Synchronization

/// The siteverify sign-up check: the client sends the token a captcha widget gave it (Cloudflare Turnstile,
/// hCaptcha, reCAPTCHA), and the gateway asks the provider's verifier about it, in the form those providers share:
/// `POST` of `application/x-www-form-urlencoded` `secret`, `response` (the token) and `remoteip` (the client's
/// address), answered with JSON `{"success": bool, "error-codes": [string]}` (other members ignored).
///
/// Fails closed: a verifier that cannot be reached in time, answers other than HTTP 200, or answers something that
/// is not that JSON makes the sign-in `unavailable` (retry later), never admitted. The secret goes to the verifier
/// only; nothing logs it or the token.
final class SiteverifyCheck: SignUpCheck {
    /// The largest answer read (the providers' answers are a few hundred bytes).
    static let answerByteCountMax = 65_536

    let name = "siteverify"
    let settings: SiteverifySettings
    private let http: any HTTPClient
    /// Digests of tokens that passed, with the idempotency key they passed for.
    private let passed: Mutex<ExpiringTable<[UInt8], String>>

    init(settings: SiteverifySettings, http: any HTTPClient) {
        self.settings = settings
        self.http = http
        passed = Mutex(ExpiringTable(lifetime: settings.passedTokenLifetime, capacity: settings.passedTokensMax))
    }

    private struct Answer: Decodable {
        var success: Bool
        var errorCodes: [String]?

        enum CodingKeys: String, CodingKey {
            case success
            case errorCodes = "error-codes"
        }
    }

    func verify(_ proof: SignUpProof?, idempotencyKey: String, source: String, now: Date) async -> SignUpCheckOutcome {
        guard case .siteverify(let token) = proof else { return .missing }
        let digest = SHA256.hash(Array(token.utf8))
        if let key = passed.withLock({ $0.value(digest, now: now) }) {
            return key == idempotencyKey ? .passed : .refused("the token was already used; get a new one")
        }
        var fields = [("secret", settings.secret), ("response", token)]
        if source != "unknown" { fields.append(("remoteip", source)) }
        let response: HTTPResponse
        do {
            response = try await http.post(
                settings.url,
                body: Array(HTTPForm.encoded(fields).utf8),
                headers: ["Content-Type": "application/x-www-form-urlencoded", "Accept": "application/json"],
                timeout: settings.timeout
            )
        } catch {
            return .unavailable("the sign-up verifier did not answer; try again later")
        }
        guard response.status == 200 else {
            return .unavailable("the sign-up verifier answered HTTP \(response.status); try again later")
        }
        guard response.body.count <= Self.answerByteCountMax,
            let answer = try? JSONDecoder().decode(Answer.self, from: Data(response.body))
        else { return .unavailable("the sign-up verifier's answer could not be read; try again later") }
        guard answer.success else {
            // The deployment's secret refused: the operator's fault, not the client's, and no sign-up passes.
            if answer.errorCodes?.contains(where: { $0.hasSuffix("-input-secret") }) == true {
                return .unavailable("the sign-up verifier refused this deployment's secret; try again later")
            }
            let codes = (answer.errorCodes ?? []).prefix(4).map { String($0.prefix(64)) }
            return .refused(
                "the sign-up verifier refused the token" + (codes.isEmpty ? "" : " (\(codes.joined(separator: ", ")))")
            )
        }
        passed.withLock { $0.store(idempotencyKey, for: digest, storedAt: now, now: now) }
        return .passed
    }
}
