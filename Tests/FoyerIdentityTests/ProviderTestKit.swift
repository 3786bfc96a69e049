import Foundation
import FoyerAPI
import FoyerCrypto
import FoyerTestSupport
import Synchronization

/// The claims of a test ID token (what Apple and Google put in theirs, as far as identity reads them).
struct IDTokenClaims: Encodable, Sendable {
    enum Flag: Encodable, Sendable {
        case bool(Bool)
        case string(String)

        func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            switch self {
            case .bool(let value): try container.encode(value)
            case .string(let value): try container.encode(value)
            }
        }
    }

    var iss: String
    var sub: String
    var aud: String
    var exp: Int64
    var iat: Int64
    var nbf: Int64?
    var nonce: String?
    var email: String?
    var email_verified: Flag?
    var hd: String?
}

/// A stand-in identity provider: its keys are generated in the test (by Python's `cryptography`, through
/// identity_check.py) and its tokens signed with them, so the service verifies real RS256/ES256 signatures.
struct TestIdentityProvider: Sendable {
    struct Key: Codable, Sendable {
        var kid: String
        var alg: String
        var pem: String?
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

    let keys: [Key]
    let jwks: JWKSet

    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
        "identity_check.py"
    )

    /// New keys: `(kid, "RS256" | "ES256")`. The same key ids give the same keys within a test run (each test has
    /// its own service, so sharing them costs nothing and saves key generation).
    static func generate(_ keys: [(String, String)]) async throws -> TestIdentityProvider {
        try await ProviderKeyCache.shared.provider(for: keys)
    }

    fileprivate static func generateFresh(_ keys: [(String, String)]) async throws -> TestIdentityProvider {
        let response = try await run(Request(keys: keys.map { Key(kid: $0.0, alg: $0.1, pem: nil) }, tokens: []))
        return TestIdentityProvider(keys: response.keys, jwks: response.jwks)
    }

    /// The JWKS as JSON, as the provider would serve it.
    var jwksJSON: [UInt8] { (try? jwks.jsonBytes()) ?? [] }

    /// Signs one token per claims with the key `kid` (the header can be overridden, e.g. its `alg`).
    func sign(_ claims: [IDTokenClaims], kid: String, header: [String: String]? = nil) async throws -> [String] {
        try await Self.run(Request(keys: keys, tokens: claims.map { TokenSpec(kid: kid, claims: $0, header: header) }))
            .tokens
    }

    func sign(_ claims: IDTokenClaims, kid: String, header: [String: String]? = nil) async throws -> String {
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
    static let shared = ProviderKeyCache()
    private var providers: [String: TestIdentityProvider] = [:]

    func provider(for keys: [(String, String)]) async throws -> TestIdentityProvider {
        let name = keys.map { "\($0.0):\($0.1)" }.joined(separator: ",")
        if let provider = providers[name] { return provider }
        let provider = try await TestIdentityProvider.generateFresh(keys)
        providers[name] = provider
        return provider
    }
}

/// What a loopback "provider" serves at its JWKS URL, changeable during a test.
final class JWKSEndpoint: Sendable {
    private struct State {
        var status = 200
        var body: [UInt8] = []
        var cacheControl: String? = "public, max-age=3600"
    }

    private let state = Mutex(State())

    init(_ body: [UInt8]) {
        state.withLock { $0.body = body }
    }

    func serve(_ body: [UInt8]) { state.withLock { $0.body = body } }
    func fail(_ status: Int = 503) { state.withLock { $0.status = status } }
    func recover() { state.withLock { $0.status = 200 } }

    func response(_ request: LoopbackHTTPServer.Request) -> LoopbackHTTPServer.Response {
        state.withLock { state in
            var headers = ["Content-Type": "application/json"]
            if let cacheControl = state.cacheControl { headers["Cache-Control"] = cacheControl }
            return .init(status: state.status, headers: headers, body: state.status == 200 ? state.body : [])
        }
    }
}

/// The raw nonce an app keeps and the `nonce` claim it asks the provider for: lowercase hex of its SHA-256.
struct TestNonce {
    let raw = Base64URL.encode(SecureRandom.bytes(count: 24))
    var hashed: String { SHA256.hash(Array(raw.utf8)).map { String(format: "%02x", $0) }.joined() }
}

let appleIssuer = "https://appleid.apple.com"
let appleAudience = "com.example.app"
let googleAudience = "1234-test.apps.googleusercontent.com"
