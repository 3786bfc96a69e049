import CoreMetrics
public import Foundation
import FoyerAPI
import FoyerRPC

/// The check a deployment runs on guest sign-ups before admission spends anything (`--sign-up-check`): a way to
/// make each new guest cost a bot something that a person does not notice. The gateway asks its check about every
/// guest sign-in (`guestSignIn` carries no proof, `guestSignInWithCheck` may) and admits only what it passes.
///
/// A check answers; the gateway turns the answer into a status and counts it (``SignUpCheckMetrics``), so every
/// check refuses the same way.
protocol SignUpCheck: Sendable {
    /// The check's name, as `--sign-up-check` spells it and the metrics label it.
    var name: String { get }

    /// A challenge for the client to work on; checks without challenges answer `failed-precondition`.
    func challenge(now: Date) throws -> SignUpChallenge

    /// What the check says about `proof` for a sign-in under `idempotencyKey` from `source` (the socket's address).
    /// The same proof with the same idempotency key passes again while the check remembers it, so a client that
    /// retries a sign-in whose answer it lost gets its guest.
    func verify(_ proof: SignUpProof?, idempotencyKey: String, source: String, now: Date) async -> SignUpCheckOutcome
}

extension SignUpCheck {
    func challenge(now: Date) throws -> SignUpChallenge {
        throw RPCError(.failedPrecondition, "this deployment's sign-up check (\(name)) has no challenges")
    }
}

/// A check's answer about one proof.
enum SignUpCheckOutcome: Equatable, Sendable {
    /// Admit the sign-up.
    case passed
    /// No proof, or a proof of another kind than the check takes.
    case missing
    /// The proof is wrong (the reason is safe to show the client).
    case refused(String)
    /// The check could not decide (a verifier unreachable, or its answer unreadable): never admitted.
    case unavailable(String)

    var label: String {
        switch self {
        case .passed: "passed"
        case .missing: "missing"
        case .refused: "refused"
        case .unavailable: "unavailable"
        }
    }
}

/// Which sign-up check a deployment runs (`GatewayConfiguration.signUpCheck`).
public enum SignUpCheckSettings: Sendable {
    /// No check: every guest sign-in goes to admission, as before checks existed (the default).
    case none
    /// A proof-of-work challenge from `signUpChallenge`, solved by the client.
    case proofOfWork(ProofOfWorkSettings)
    /// A token from a captcha widget, checked with its provider's siteverify endpoint.
    case siteverify(SiteverifySettings)
}

/// Settings of the proof-of-work check.
public struct ProofOfWorkSettings: Sendable {
    /// Leading zero bits a solution's hash must have: each one doubles the client's expected work (2^difficulty
    /// hashes on average). Default 18, about 262,000 hashes: well under a second on a phone.
    public var difficulty = 18
    /// How long a challenge may be used after it is issued. Default 120 s.
    public var challengeLifetime: Duration = .seconds(120)
    /// Most spent challenges remembered at once (until they expire); past it, sign-ups with a new challenge answer
    /// `unavailable` until some expire. Default 100,000.
    public var spentChallengesMax = 100_000

    public init() {}
}

/// Settings of the siteverify check (Cloudflare Turnstile, hCaptcha, reCAPTCHA and others with the same form).
public struct SiteverifySettings: Sendable {
    /// The verifier's endpoint (https; http only for tests and loopback).
    public var url: URL
    /// The deployment's secret for the verifier; sent to it only, never logged.
    public var secret: String
    /// How long the gateway waits for the verifier before answering `unavailable`: whole seconds (Foundation's
    /// URLSession on Linux waits not at all for less than a second). Default 5 s.
    public var timeout: Duration = .seconds(5)
    /// How long a token that passed is remembered, so a retried sign-in with the same idempotency key passes
    /// without asking the verifier again (which refuses a token it has seen). Default 300 s.
    public var passedTokenLifetime: Duration = .seconds(300)
    /// Most passed tokens remembered. Default 100,000.
    public var passedTokensMax = 100_000

    public init(url: URL, secret: String) {
        self.url = url
        self.secret = secret
    }
}

/// What the gateway counts about its sign-up check, through swift-metrics:
///
/// | metric | type | labels |
/// |---|---|---|
/// | `foyer_gateway_sign_up_checks_total` | counter | `check` (its name), `outcome` (`passed`, `missing`, `refused`, `unavailable`) |
/// | `foyer_gateway_sign_up_challenges_total` | counter | (none): challenges issued |
final class SignUpCheckMetrics: Sendable {
    private let outcomes: [String: Counter]
    private let challenges: Counter

    init(check: String, factory: any MetricsFactory = MetricsSystem.factory) {
        var outcomes: [String: Counter] = [:]
        for outcome in ["passed", "missing", "refused", "unavailable"] {
            outcomes[outcome] = Counter(
                label: "foyer_gateway_sign_up_checks_total",
                dimensions: [("check", check), ("outcome", outcome)],
                factory: factory
            )
        }
        self.outcomes = outcomes
        challenges = Counter(label: "foyer_gateway_sign_up_challenges_total", dimensions: [], factory: factory)
    }

    func record(_ outcome: SignUpCheckOutcome) { outcomes[outcome.label]?.increment() }
    func challengeIssued() { challenges.increment() }
}
