import Foundation
import FoyerAPI
import FoyerCrypto
import FoyerIdentity
import FoyerRPC
import FoyerStorage
import FoyerTestSupport
import FoyerWire
import SQLKit
import Synchronization
import Testing

/// A clock tests move by hand. It starts at the current time (whole seconds), so tokens it stamps are also valid
/// for outside verifiers that read the real clock.
final class TestClock: Sendable {
    private let current: Mutex<Date>

    init(_ start: Date = Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down))) {
        current = Mutex(start)
    }

    func now() -> Date { current.withLock { $0 } }

    func advance(by duration: Duration) {
        let (seconds, attoseconds) = duration.components
        current.withLock { $0 = $0.addingTimeInterval(TimeInterval(seconds) + TimeInterval(attoseconds) / 1e18) }
    }
}

/// A running identity service for one test: its RPC client, its database (for white-box checks), its clock.
struct IdentityHarness: Sendable {
    let client: RPCClient
    let service: IdentityService
    let database: FoyerDatabase
    let clock: TestClock
    let configuration: IdentityConfiguration

    @discardableResult
    func call<Request, Response>(_ method: RPCMethod<Request, Response>, _ request: Request) async throws -> Response {
        try await client.call(method, request)
    }

    /// A new guest's session.
    /// The status `method` failed with, or nil if it answered.
    func status<Request, Response>(_ method: RPCMethod<Request, Response>, _ request: Request) async -> RPCStatus? {
        await FoyerIdentityTests.status { try await call(method, request) }
    }

    /// Both tokens of each session are refused as revoked: the refresh token and the access token.
    func expectRevoked(_ sessions: [SessionTokens], sourceLocation: SourceLocation = #_sourceLocation) async {
        for session in sessions {
            let refresh = RefreshSessionRequest(refreshToken: session.refreshToken)
            let verify = VerifyAccessTokenRequest(accessToken: session.accessToken)
            #expect(
                await status(IdentityMethods.refreshSession, refresh) == IdentityStatus.tokenRevoked,
                sourceLocation: sourceLocation
            )
            #expect(
                await status(IdentityMethods.verifyAccessToken, verify) == IdentityStatus.tokenRevoked,
                sourceLocation: sourceLocation
            )
        }
    }

    func newGuest() async throws -> SessionTokens {
        try await call(IdentityMethods.createGuest, CreateGuestRequest(idempotencyKey: randomKey()))
    }

    /// Rows of `table` where `column` equals `value`.
    func count(_ table: String, where column: String, is value: String) async throws -> Int {
        try await database.withConnection { sql in
            try await sql.raw("SELECT COUNT(*) AS n FROM \(ident: table) WHERE \(ident: column) = \(bind: value)")
                .first()!.decode(column: "n", as: Int.self)
        }
    }

    func count(_ table: String) async throws -> Int {
        try await database.withConnection { sql in
            try await sql.raw("SELECT COUNT(*) AS n FROM \(ident: table)").first()!.decode(column: "n", as: Int.self)
        }
    }
}

/// Settings for tests: cheap scrypt (N = 2^10: about a millisecond), the test clock, stand-in identity providers
/// allowed (their keys come from a loopback http server or a file), and local mode with the outbox mailer (the
/// tests read email links from the outbox).
func testIdentityConfiguration(database: DatabaseConfiguration, clock: TestClock) -> IdentityConfiguration {
    var configuration = IdentityConfiguration(database: database)
    configuration.localMode = true
    configuration.mailer = .outbox
    configuration.password.argon2 = Argon2Parameters(memoryKiB: 1024, iterations: 1, parallelism: 1)
    configuration.password.scrypt = ScryptParameters(logN: 10, r: 8, p: 1, maxMemoryBytes: 16 << 20)
    configuration.allowTestIdentityProviders = true
    configuration.now = { clock.now() }
    return configuration
}

/// Runs `body` against an identity service on `engine`, started in-process on a free port and stopped afterwards.
nonisolated(nonsending) func withIdentity<T: Sendable>(
    _ engine: TestEngine,
    clock: TestClock = TestClock(),
    configure: (inout IdentityConfiguration) -> Void = { _ in },
    _ body: (IdentityHarness) async throws -> T
) async throws -> T {
    try await withTestDatabase(engine) { database in
        var configuration = testIdentityConfiguration(database: database.configuration, clock: clock)
        configure(&configuration)
        return try await withIdentity(database: database, configuration: configuration, clock: clock, body)
    }
}

/// Runs `body` against an identity service on an open database (for restarts on the same data).
nonisolated(nonsending) func withIdentity<T: Sendable>(
    database: FoyerDatabase,
    configuration: IdentityConfiguration,
    clock: TestClock,
    _ body: (IdentityHarness) async throws -> T
) async throws -> T {
    let service = try await IdentityService.make(
        configuration: configuration,
        database: database,
        server: testServerConfiguration(service: "identity"),
        logger: TestLogging.logger("foyer.identity")
    )
    do {
        let result = try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await service.server.run() }
            let port = try await service.server.boundAddress().port!
            let client = testClient(port: port, service: "identity") { $0.maxAttempts = 1 }
            let harness = IdentityHarness(
                client: client,
                service: service,
                database: database,
                clock: clock,
                configuration: configuration
            )
            do {
                let result = try await body(harness)
                await client.shutdown()
                group.cancelAll()
                return result
            } catch {
                await client.shutdown()
                group.cancelAll()
                throw error
            }
        }
        try await service.close()
        return result
    } catch {
        try? await service.close()
        throw error
    }
}

/// The status a call failed with, or nil if it succeeded.
func status(_ body: () async throws -> some Any) async -> RPCStatus? {
    do {
        _ = try await body()
        return nil
    } catch let error as RPCError {
        return error.status
    } catch {
        Issue.record("not an RPCError: \(error)")
        return nil
    }
}

/// The RPCError a call failed with.
func rpcError(_ body: () async throws -> some Any) async throws -> RPCError {
    do {
        _ = try await body()
    } catch let error as RPCError {
        return error
    }
    throw TestFailure("the call succeeded but was expected to fail")
}

/// Signs in with an email and password from the client address `source` (empty: an internal caller).
func signIn(
    _ identity: IdentityHarness,
    _ email: String,
    _ password: String,
    from source: String = ""
) async throws -> SessionTokens {
    try await identity.call(
        IdentityMethods.signInWithPassword,
        PasswordSignInRequest(email: email, password: password, source: source)
    )
}

/// The conflict a link answered; a failure when it answered a session.
func expectConflict(_ body: () async throws -> LinkAttempt) async throws -> ConflictDetails {
    guard case .conflict(let details) = try await body() else {
        throw TestFailure("the link answered a session, not a conflict")
    }
    return details
}

extension LinkAttempt {
    /// The session of a link that must not meet another account.
    func linked() throws -> SessionTokens {
        guard case .session(let tokens) = self else { throw TestFailure("the link met another account") }
        return tokens
    }
}

struct TestFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// An unguessable idempotency key.
func randomKey() -> String { Base64URL.encode(SecureRandom.bytes(count: 16)) }

/// The claims of an access token, read without verifying it (tests compare with what identity answered).
struct DecodedAccessToken: Decodable {
    var sub: String
    var is_anonymous: Bool
    var sid: String
    var iss: String
    var aud: String
    var iat: Int64
    var exp: Int64
    var plan: String?
    var roles: [String]?
}

func decodeClaims(_ token: String) throws -> DecodedAccessToken {
    let payload = try Base64URL.decode(token.split(separator: ".")[1])
    return try JSONDecoder().decode(DecodedAccessToken.self, from: Data(payload))
}

extension CallerOperation {
    /// `session`'s operation `operationID`, its answer kept under an id derived from it.
    static func of(
        _ session: SessionTokens,
        operationID: String,
        requirement: TokenRequirement = .any
    ) -> CallerOperation {
        CallerOperation(
            accessToken: session.accessToken,
            requirement: requirement,
            operationID: operationID,
            answerID: SHA256.hash(Array(operationID.utf8))
        )
    }
}

extension LinkAccountRequest {
    /// `session` linking `proof` as the gateway asks identity to, choosing `onConflict`.
    static func of(
        _ session: SessionTokens,
        _ proof: Proof,
        onConflict: ConflictChoice = .merge,
        policy: MergePolicy = .keepBoth,
        operationID: String = "link-op"
    ) -> LinkAccountRequest {
        LinkAccountRequest(
            operation: .of(session, operationID: operationID),
            proof: proof,
            onConflict: onConflict,
            mergePolicy: policy,
            source: ""
        )
    }

    /// `session` linking the email and password of another account, choosing `onConflict`.
    static func password(
        _ session: SessionTokens,
        email: String,
        password: String,
        onConflict: ConflictChoice = .merge,
        policy: MergePolicy = .keepBoth,
        operationID: String = "link-op"
    ) -> LinkAccountRequest {
        .of(
            session,
            .credential(.password(email: email, password: password)),
            onConflict: onConflict,
            policy: policy,
            operationID: operationID
        )
    }
}

extension LinkStep {
    /// The account's session and the guest's state of a merge or discard that began.
    func begun() throws -> (account: SessionTokens, guest: AccountState) {
        guard case .begun(let account, let guest) = self else { throw TestFailure("link answered \(self)") }
        return (account, guest)
    }
}

extension IdentityHarness {
    /// `session` redeeming a conflict ticket as the gateway's `resolveConflict` does, choosing merge: the account's
    /// session (the guest is now merging into it, signed out).
    func redeem(_ session: SessionTokens, ticket: String, operationID: String = "redeem") async throws -> SessionTokens
    {
        try await call(IdentityMethods.link, .of(session, .ticket(ticket), operationID: operationID)).begun().account
    }
}
