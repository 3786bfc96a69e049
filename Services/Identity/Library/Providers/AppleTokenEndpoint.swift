import Foundation
import FoyerWebhooks

/// Sign in with Apple's REST endpoints as identity uses them: `POST /auth/token` exchanges an authorization code
/// for a refresh token, `POST /auth/revoke` revokes a refresh token. Both take a form body with the app's client
/// id and a fresh client secret (``AppleClientSecret``).
struct AppleTokenEndpoint: Sendable {
    /// How a revocation ended.
    enum Revocation: Equatable {
        /// Apple answered 200, or said the token was already invalid (`invalid_grant`): nothing is left to revoke.
        case revoked
        /// Apple could not be reached or failed; try again later.
        case failed(String)
    }

    /// The largest answer read from Apple.
    static let responseByteCountMax = 64 << 10
    /// The longest refresh token kept.
    static let refreshTokenByteCountMax = 4096

    let settings: AppleRevocationSettings
    let secret: AppleClientSecret
    let http: any HTTPClient

    private var base: String {
        settings.endpoint.hasSuffix("/") ? String(settings.endpoint.dropLast()) : settings.endpoint
    }

    /// Exchanges `code` (grant type `authorization_code`) for a refresh token.
    ///
    /// - Throws: `HTTPClientError` saying why there is no refresh token (Apple unreachable, refused, or answered
    ///   without one).
    func exchange(code: String, clientID: String, now: Date) async throws -> String {
        let response = try await post(
            "/auth/token",
            [
                ("client_id", clientID), ("client_secret", try secret.make(clientID: clientID, now: now)),
                ("code", code), ("grant_type", "authorization_code"),
            ],
            timeout: settings.exchangeTimeout
        )
        guard response.status == 200 else {
            throw HTTPClientError("Apple answered \(response.status) \(Self.errorCode(response.body) ?? "")")
        }
        struct Answer: Decodable { var refresh_token: String? }
        guard let answer = try? JSONDecoder().decode(Answer.self, from: Data(response.body)),
            let token = answer.refresh_token, !token.isEmpty,
            token.utf8.count <= Self.refreshTokenByteCountMax
        else {
            throw HTTPClientError("Apple's answer holds no usable refresh_token")
        }
        return token
    }

    /// Revokes `refreshToken` (token type hint `refresh_token`).
    func revoke(refreshToken: String, clientID: String, now: Date) async -> Revocation {
        let response: HTTPResponse
        do {
            response = try await post(
                "/auth/revoke",
                [
                    ("client_id", clientID), ("client_secret", try secret.make(clientID: clientID, now: now)),
                    ("token", refreshToken), ("token_type_hint", "refresh_token"),
                ],
                timeout: settings.requestTimeout
            )
        } catch {
            return .failed("\(error)")
        }
        if response.status == 200 { return .revoked }
        let code = Self.errorCode(response.body)
        if response.status == 400, code == "invalid_grant" || code == "invalid_token" { return .revoked }
        return .failed("Apple answered \(response.status) \(code ?? "")")
    }

    private func post(_ path: String, _ fields: [(String, String)], timeout: Duration) async throws -> HTTPResponse {
        guard let url = URL(string: base + path) else { throw HTTPClientError("unusable Apple endpoint URL") }
        let body = HTTPForm.encoded(fields)
        let response = try await http.post(
            url,
            body: Array(body.utf8),
            headers: ["Content-Type": "application/x-www-form-urlencoded", "Accept": "application/json"],
            timeout: timeout
        )
        guard response.body.count <= Self.responseByteCountMax else {
            throw HTTPClientError("Apple's answer is larger than \(Self.responseByteCountMax) bytes")
        }
        return response
    }

    /// `error` of an OAuth error answer (`{"error":"invalid_grant"}`), if the body is one.
    private static func errorCode(_ body: [UInt8]) -> String? {
        struct Failure: Decodable { var error: String }
        return (try? JSONDecoder().decode(Failure.self, from: Data(body)))?.error.prefix(64).description
    }
}
