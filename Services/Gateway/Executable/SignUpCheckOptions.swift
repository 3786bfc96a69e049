import ArgumentParser
import Foundation
import FoyerGateway
import FoyerServiceKit
import FoyerWebhooks

/// The gateway's sign-up check flags (`--sign-up-check` and what each check needs).
struct SignUpCheckOptions: ParsableArguments {
    enum Kind: String, CaseIterable, ExpressibleByArgument, Sendable {
        case none
        case proofOfWork = "proof-of-work"
        case siteverify
    }

    @Option(
        help: """
            The check guest sign-ups pass before admission: none, proof-of-work (the client solves a challenge from \
            signUpChallenge) or siteverify (a captcha token checked with --siteverify-url). Clients released before \
            checks existed can sign up only with none. (env: FOYER_SIGN_UP_CHECK; default: none)
            """
    )
    var signUpCheck: String?
    @Option(
        help: """
            proof-of-work: leading zero bits a solution's SHA-256 must have, 0 to 32 (each bit doubles the client's \
            work). (env: FOYER_SIGN_UP_DIFFICULTY; default: 18)
            """
    )
    var signUpDifficulty: Int?
    @Option(
        help: """
            proof-of-work: seconds a challenge can be used, 10 to 3600. \
            (env: FOYER_SIGN_UP_CHALLENGE_SECONDS; default: 120)
            """
    )
    var signUpChallengeSeconds: Int?
    @Option(
        help: """
            siteverify: the verifier's endpoint, such as https://challenges.cloudflare.com/turnstile/v0/siteverify \
            (http only to loopback). (env: FOYER_SITEVERIFY_URL; default: none)
            """
    )
    var siteverifyUrl: String?
    @Option(
        help: """
            siteverify: a file holding the deployment's verifier secret (its first line). FOYER_SITEVERIFY_SECRET \
            wins over any file. (env: FOYER_SITEVERIFY_SECRET_FILE; default: none)
            """
    )
    var siteverifySecretFile: String?
    @Option(
        help: """
            siteverify: seconds to wait for the verifier before answering unavailable (never admitting), 1 to 60. \
            (env: FOYER_SITEVERIFY_TIMEOUT_SECONDS; default: 5)
            """
    )
    var siteverifyTimeoutSeconds: Int?

    /// The settings the flags and variables say.
    func settings(_ reader: SettingsReader) throws -> SignUpCheckSettings {
        let kind =
            try reader.value(
                parsing: signUpCheck,
                .choice("--sign-up-check", "FOYER_SIGN_UP_CHECK", of: Kind.allCases.map(\.rawValue))
            ) ?? Kind.none
        switch kind {
        case .none:
            return .none
        case .proofOfWork:
            var settings = ProofOfWorkSettings()
            let difficulty = Setting<Int>.int("--sign-up-difficulty", "FOYER_SIGN_UP_DIFFICULTY", in: 0...32)
            settings.difficulty = try reader.value(signUpDifficulty, difficulty) ?? settings.difficulty
            let lifetime = Setting<Int>.int(
                "--sign-up-challenge-seconds",
                "FOYER_SIGN_UP_CHALLENGE_SECONDS",
                in: 10...3600
            )
            if let seconds = try reader.value(signUpChallengeSeconds, lifetime) {
                settings.challengeLifetime = .seconds(seconds)
            }
            return .proofOfWork(settings)
        case .siteverify:
            guard let text = try reader.value(siteverifyUrl, .text("--siteverify-url", "FOYER_SITEVERIFY_URL")) else {
                throw ValidationError("--sign-up-check siteverify needs --siteverify-url")
            }
            let url: URL
            do {
                url = try Webhook.endpoint(text)
            } catch {
                throw ValidationError("--siteverify-url \(text) must be an https URL (http only to loopback)")
            }
            var settings = SiteverifySettings(url: url, secret: try secret(reader))
            let timeout = Setting<Int>.int(
                "--siteverify-timeout-seconds",
                "FOYER_SITEVERIFY_TIMEOUT_SECONDS",
                in: 1...60
            )
            if let seconds = try reader.value(siteverifyTimeoutSeconds, timeout) {
                settings.timeout = .seconds(seconds)
            }
            return .siteverify(settings)
        }
    }

    /// The verifier secret: `FOYER_SITEVERIFY_SECRET`, else the first line of the secret file. Never in an error.
    private func secret(_ reader: SettingsReader) throws -> String {
        if let secret = reader.text("FOYER_SITEVERIFY_SECRET") { return secret }
        let fileSetting = Setting<String>.text("--siteverify-secret-file", "FOYER_SITEVERIFY_SECRET_FILE")
        guard let file = try reader.value(siteverifySecretFile, fileSetting) else {
            throw ValidationError(
                "--sign-up-check siteverify needs FOYER_SITEVERIFY_SECRET or --siteverify-secret-file"
            )
        }
        guard let text = try? String(contentsOfFile: file, encoding: .utf8),
            let line = text.split(whereSeparator: \.isNewline).first?.trimmingCharacters(in: .whitespaces),
            !line.isEmpty
        else { throw ValidationError("cannot read a secret from the siteverify secret file \(file)") }
        return line
    }
}
