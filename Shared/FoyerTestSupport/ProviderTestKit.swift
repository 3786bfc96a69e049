// A stand-in for Sign in with Apple and Google, for any test target: keys generated in the test, ID tokens signed
// with them, the JWKS the provider would publish, and the nonce an app keeps.
//
// - `TestIdentityProvider`: keys and signatures made by Python's `cryptography` (identity_check.py, next to this
//   file), so the services verify real RS256/ES256 signatures made by an outside implementation.
// - `IDTokenClaims`: what a provider puts in its ID token.
// - `JWKSEndpoint`: what a loopback provider serves at its JWKS URL (with `LoopbackHTTPServer`).
// - `TestNonce`: the raw nonce an app keeps and the hashed `nonce` claim.

public import Foundation
public import FoyerCrypto
import Synchronization

/// The claims of a test ID token (what Apple and Google put in theirs, as far as identity reads them).
public struct IDTokenClaims: Encodable, Sendable {
    /// `email_verified`, which Apple sends as a string and Google as a boolean.
    public enum Flag: Encodable, Sendable {
        case bool(Bool)
        case string(String)

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            switch self {
            case .bool(let value): try container.encode(value)
            case .string(let value): try container.encode(value)
            }
        }
    }

    public var iss: String
    public var sub: String
    public var aud: String
    public var exp: Int64
    public var iat: Int64
    public var nbf: Int64?
    public var nonce: String?
    public var email: String?
    public var email_verified: Flag?
    public var hd: String?
    /// The token's id (Google's tokens have one, Apple's do not).
    public var jti: String?

    public init(
        iss: String,
        sub: String,
        aud: String,
        exp: Int64,
        iat: Int64,
        nbf: Int64? = nil,
        nonce: String? = nil,
        email: String? = nil,
        email_verified: Flag? = nil,
        hd: String? = nil,
        jti: String? = nil
    ) {
        self.iss = iss
        self.sub = sub
        self.aud = aud
        self.exp = exp
        self.iat = iat
        self.nbf = nbf
        self.nonce = nonce
        self.email = email
        self.email_verified = email_verified
        self.hd = hd
        self.jti = jti
    }
}

/// A stand-in identity provider: its keys are generated in the test (by Python's `cryptography`, through
/// identity_check.py) and its tokens signed with them, so the service verifies real RS256/ES256 signatures.
public struct TestIdentityProvider: Sendable {
    /// One signing key: its id, `RS256` or `ES256`, and its private key (PKCS#8 PEM) once generated.
    public struct Key: Codable, Sendable {
        public var kid: String
        public var alg: String
        public var pem: String?
    }

    private struct TokenSpec: Encodable {
        var kid: String
        var claims: IDTokenClaims
        var header: [String: String]?
    }

    private struct Request: Encodable {
        var keys: [Key]
        var tokens: [TokenSpec]
    }

    private struct Response: Decodable {
        var jwks: JWKSet
        var keys: [Key]
        var tokens: [String]
    }

    public let keys: [Key]
    /// The public keys, as the provider publishes them.
    public let jwks: JWKSet

    /// identity_check.py, which also checks Foyer's own access tokens with PyJWT (`verify`).
    public static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
        "identity_check.py"
    )

    /// New keys: `(kid, "RS256" | "ES256")`. The same key ids give the same keys within a test run (each test has
    /// its own service, so sharing them costs nothing and saves key generation).
    public static func generate(_ keys: [(String, String)]) async throws -> TestIdentityProvider {
        try await ProviderKeyCache.shared.provider(for: keys)
    }

    fileprivate static func generateFresh(_ keys: [(String, String)]) async throws -> TestIdentityProvider {
        let response = try await run(Request(keys: keys.map { Key(kid: $0.0, alg: $0.1, pem: nil) }, tokens: []))
        return TestIdentityProvider(keys: response.keys, jwks: response.jwks)
    }

    /// The JWKS as JSON, as the provider would serve it.
    public var jwksJSON: [UInt8] { (try? jwks.jsonBytes()) ?? [] }

    /// Signs one token per claims with the key `kid` (the header can be overridden, e.g. its `alg`).
    public func sign(_ claims: [IDTokenClaims], kid: String, header: [String: String]? = nil) async throws -> [String] {
        try await Self.run(Request(keys: keys, tokens: claims.map { TokenSpec(kid: kid, claims: $0, header: header) }))
            .tokens
    }

    public func sign(_ claims: IDTokenClaims, kid: String, header: [String: String]? = nil) async throws -> String {
        try await sign([claims], kid: kid, header: header)[0]
    }

    /// The helper, started once per test run.
    private static let helper = PythonCoprocess(
        script,
        arguments: ["serve"],
        missingPackages: [3: "run `make deps` to install Python's cryptography package"]
    )

    private static func run(_ request: Request) async throws -> Response {
        let output = try await helper.request(JSONEncoder().encode(request))
        if let failure = try? JSONDecoder().decode([String: String].self, from: output), let error = failure["error"] {
            throw PythonScript.Failure(description: "identity_check.py: \(error)")
        }
        return try JSONDecoder().decode(Response.self, from: output)
    }
}

/// Test providers by key specification, generated once per test run.
private actor ProviderKeyCache {
    private enum Entry {
        case ready(TestIdentityProvider)
        /// Being generated; these callers wait for the same keys (suites run in parallel, and a second set of keys
        /// under the same ids would not match the JWKS a service was given).
        case generating([CheckedContinuation<TestIdentityProvider, any Error>])
    }

    static let shared = ProviderKeyCache()
    private var entries: [String: Entry] = [:]

    func provider(for keys: [(String, String)]) async throws -> TestIdentityProvider {
        let name = keys.map { "\($0.0):\($0.1)" }.joined(separator: ",")
        switch entries[name] {
        case .ready(let provider):
            return provider
        case .generating:
            return try await withCheckedThrowingContinuation { continuation in
                if case .generating(let waiters) = entries[name] {
                    entries[name] = .generating(waiters + [continuation])
                } else if case .ready(let provider) = entries[name] {
                    continuation.resume(returning: provider)
                }
            }
        case nil:
            entries[name] = .generating([])
            let result: Result<TestIdentityProvider, any Error>
            do {
                result = .success(try await TestIdentityProvider.generateFresh(keys))
            } catch {
                result = .failure(error)
            }
            guard case .generating(let waiters) = entries[name] else { return try result.get() }
            entries[name] = try? .ready(result.get())
            for waiter in waiters { waiter.resume(with: result) }
            return try result.get()
        }
    }
}

/// What a loopback "provider" serves at its JWKS URL, changeable during a test.
public final class JWKSEndpoint: Sendable {
    private struct State {
        var status = 200
        var body: [UInt8] = []
        var cacheControl: String? = "public, max-age=3600"
    }

    private let state = Mutex(State())

    public init(_ body: [UInt8]) {
        state.withLock { $0.body = body }
    }

    /// Serves `body` from now on.
    public func serve(_ body: [UInt8]) { state.withLock { $0.body = body } }
    /// Answers `status` with no body from now on, as a provider having an outage would.
    public func fail(_ status: Int = 503) { state.withLock { $0.status = status } }
    /// Serves the keys again.
    public func recover() { state.withLock { $0.status = 200 } }

    /// The answer to `request` (a `LoopbackHTTPServer` handler).
    public func response(_ request: LoopbackHTTPServer.Request) -> LoopbackHTTPServer.Response {
        state.withLock { state in
            var headers = ["Content-Type": "application/json"]
            if let cacheControl = state.cacheControl { headers["Cache-Control"] = cacheControl }
            return .init(status: state.status, headers: headers, body: state.status == 200 ? state.body : [])
        }
    }
}

/// The raw nonce an app keeps and the `nonce` claim it asks the provider for: lowercase hex of its SHA-256.
public struct TestNonce: Sendable {
    public let raw = Base64URL.encode(SecureRandom.bytes(count: 24))
    /// The `nonce` claim: lowercase hex of the SHA-256 of `raw`.
    public var hashed: String { SHA256.hash(Array(raw.utf8)).map { String(format: "%02x", $0) }.joined() }

    public init() {}
}

/// Sign in with Apple's issuer.
public let appleIssuer = "https://appleid.apple.com"
/// The app's bundle id, the audience of test Apple tokens.
public let appleAudience = "com.example.app"
/// The app's OAuth client id, the audience of test Google tokens.
public let googleAudience = "1234-test.apps.googleusercontent.com"
