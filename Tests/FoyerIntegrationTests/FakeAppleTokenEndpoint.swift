import Foundation
import FoyerCrypto
import FoyerTestSupport
import Synchronization
import Testing

/// Apple's `/auth/token` and `/auth/revoke` as the tests play them, on loopback: one server per test run, shared
/// by the suites (each test uses its own codes, so they never meet).
///
/// - `/auth/token` answers a code `good-…` with the refresh token `rt-<code>`, any other code with 400
///   `invalid_grant`;
/// - `/auth/revoke` answers 200, or 503 while the test refuses that token (Apple having an outage).
///
/// Every request is kept with its form fields, so tests check what identity sent, the client secret included.
final class FakeAppleTokenEndpoint: Sendable {
    /// One request as the fake received it.
    struct Call: Sendable {
        var path: String
        var contentType: String?
        var form: [String: String]
    }

    static let teamID = "TEAMID1234"
    static let keyID = "APPLEKEY01"
    private static let keyName = "apple-client-secret"

    let server: LoopbackHTTPServer
    /// The team's key: its private key (PKCS#8 PEM, the .p8 file) and, for checking secrets, its JWKS.
    let key: TestIdentityProvider
    private let refused: RefusedTokens

    /// The refresh tokens whose revocation the fake answers with 503.
    private final class RefusedTokens: Sendable {
        let tokens = Mutex<Set<String>>([])
    }

    private init(server: LoopbackHTTPServer, key: TestIdentityProvider, refused: RefusedTokens) {
        self.server = server
        self.key = key
        self.refused = refused
    }

    private static let started = Mutex<Task<FakeAppleTokenEndpoint, any Error>?>(nil)

    /// The run's fake, started on first use.
    static func shared() async throws -> FakeAppleTokenEndpoint {
        let task = started.withLock { task in
            if let task { return task }
            let made = Task { try await start() }
            task = made
            return made
        }
        return try await task.value
    }

    private static func start() async throws -> FakeAppleTokenEndpoint {
        let key = try await TestIdentityProvider.generate([(keyName, "ES256")])
        let refused = RefusedTokens()
        let server = try await LoopbackHTTPServer.start { request in
            let form = Self.form(request.body)
            switch request.path {
            case "/auth/token":
                guard let code = form["code"], code.hasPrefix("good-") else {
                    return Self.json(400, #"{"error":"invalid_grant"}"#)
                }
                return Self.json(
                    200,
                    #"{"access_token":"at","token_type":"Bearer","expires_in":3600,"refresh_token":"rt-\#(code)","id_token":"x.y.z"}"#
                )
            case "/auth/revoke":
                let token = form["token"] ?? ""
                return refused.tokens.withLock { $0.contains(token) } ? Self.json(503, "{}") : Self.json(200, "")
            default:
                return Self.json(404, "{}")
            }
        }
        return FakeAppleTokenEndpoint(server: server, key: key, refused: refused)
    }

    /// identity's environment for this fake: team, key id, the key file written into `directory`, the endpoint.
    func environment(directory: URL) throws -> [String: String] {
        let file = directory.appendingPathComponent("apple-key.p8")
        try Data((key.keys[0].pem ?? "").utf8).write(to: file)
        return [
            "FOYER_APPLE_TEAM_ID": Self.teamID, "FOYER_APPLE_KEY_ID": Self.keyID,
            "FOYER_APPLE_KEY_FILE": file.path, "FOYER_APPLE_ENDPOINT": server.url(""),
        ]
    }

    /// Answers 503 to revocations of `token` until `allow(_:)`.
    func refuse(_ token: String) { refused.tokens.withLock { _ = $0.insert(token) } }
    func allow(_ token: String) { refused.tokens.withLock { _ = $0.remove(token) } }

    /// The calls to `path` whose form field `field` is `value`, in order.
    func calls(_ path: String, _ field: String, _ value: String) -> [Call] {
        server.requests.filter { $0.path == path }.map {
            Call(path: $0.path, contentType: $0.headers["content-type"], form: Self.form($0.body))
        }.filter { $0.form[field] == value }
    }

    /// Checks a call the way Apple would: a form body; `client_id` the app's; `client_secret` an ES256 JWT whose
    /// signature verifies with the team's public key, `kid` the key id, `iss` the team, `sub` the client id, `aud`
    /// Apple, `iat` ≤ `exp` ≤ `iat` + 6 months.
    func expectAuthenticated(_ call: Call, sourceLocation: SourceLocation = #_sourceLocation) throws {
        struct Claims: Decodable {
            var iss: String
            var sub: String
            var aud: String
            var iat: Int64
            var exp: Int64
        }
        #expect(call.contentType == "application/x-www-form-urlencoded", sourceLocation: sourceLocation)
        #expect(call.form["client_id"] == appleAudience, sourceLocation: sourceLocation)
        let secret = try #require(call.form["client_secret"], sourceLocation: sourceLocation)
        let unverified = try JWT.decode(secret)
        #expect(unverified.algorithm == .es256, sourceLocation: sourceLocation)
        #expect(unverified.keyID == Self.keyID, sourceLocation: sourceLocation)
        let verified = try unverified.verify(with: try key.jwks.keys[0].verificationKey())
        let claims = try verified.claims(as: Claims.self)
        #expect(claims.iss == Self.teamID, sourceLocation: sourceLocation)
        #expect(claims.sub == appleAudience, sourceLocation: sourceLocation)
        #expect(claims.aud == "https://appleid.apple.com", sourceLocation: sourceLocation)
        #expect(claims.iat <= claims.exp && claims.exp <= claims.iat + 180 * 86_400, sourceLocation: sourceLocation)
    }

    private static func json(_ status: Int, _ body: String) -> LoopbackHTTPServer.Response {
        .init(status: status, headers: ["Content-Type": "application/json"], body: Array(body.utf8))
    }

    /// `application/x-www-form-urlencoded` fields.
    private static func form(_ body: [UInt8]) -> [String: String] {
        var fields: [String: String] = [:]
        for pair in String(decoding: body, as: UTF8.self).split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            func decode(_ text: Substring) -> String {
                text.replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? String(text)
            }
            fields[decode(parts[0])] = parts.count > 1 ? decode(parts[1]) : ""
        }
        return fields
    }
}
