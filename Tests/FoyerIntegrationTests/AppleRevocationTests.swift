import Foundation
import FoyerAPI
import FoyerClient
import FoyerCrypto
import FoyerStackProcesses
import FoyerTestSupport
import SQLKit
import Testing

// Sign in with Apple's revocation on deletion (App Store guideline 5.1.1(v)) through the real executables, against
// a fake Apple token endpoint (FakeAppleTokenEndpoint): the authorization code given at link or sign-in is
// exchanged with a client secret signed by the team's key, the refresh token is kept sealed, and delete-everything
// revokes it, later if Apple is down at the time.

@Suite("Apple token revocation on delete through the real executables (SQLite)", .sharedStack(.withAppleRevocation()))
struct AppleRevocationTests {
    @Test("A guest links Apple with a code: the code is exchanged, the token kept sealed, revoked at deletion")
    func linkThenDelete() async throws { try await appleRevocationJourney(SharedStack.get()) }

    @Test("Apple down at deletion: the deletion stops, and cleanup's recovery finishes it once Apple answers")
    func appleDownAtDeletion() async throws { try await appleDownAtDeletionJourney(SharedStack.get()) }

    @Test("Without a code, or with one Apple refuses, sign-in works and the deletion revokes nothing")
    func noToken() async throws { try await appleNoTokenJourney(SharedStack.get()) }

    @Test("foyer sign-in --authorization-code, then foyer delete-account: the token is exchanged, then revoked")
    func commandLine() async throws { try await appleCommandLineJourney(SharedStack.get()) }

    @Test("Unlinking Apple revokes the kept token; with Apple down the unlink succeeds and the deletion revokes it")
    func unlink() async throws { try await appleUnlinkJourney(SharedStack.get()) }
}

@Suite(
    "Apple token revocation on delete through the real executables (PostgreSQL)",
    .enabled(
        if: postgresConfigured,
        "FOYER_TEST_POSTGRES_URL is not set; start one with scripts/throwaway-postgres.sh"
    ),
    .sharedStack(.withAppleRevocation(engine: .postgres))
)
struct PostgresAppleRevocationTests {
    @Test("link, then delete") func linkThenDelete() async throws {
        try await appleRevocationJourney(SharedStack.get())
    }
    @Test("Apple down at deletion") func appleDownAtDeletion() async throws {
        try await appleDownAtDeletionJourney(SharedStack.get())
    }
    @Test("no token") func noToken() async throws { try await appleNoTokenJourney(SharedStack.get()) }
    @Test("the command line") func commandLine() async throws {
        try await appleCommandLineJourney(SharedStack.get())
    }
    @Test("unlinking Apple") func unlink() async throws { try await appleUnlinkJourney(SharedStack.get()) }
}

extension RunningStackOptions {
    /// ``withStandInApple(engine:)``, with identity holding the team's client-secret key, Apple's endpoints at the
    /// fake, and a key-encryption key (which seals the refresh tokens).
    static func withAppleRevocation(engine: TestEngine = .sqlite) -> RunningStackOptions {
        var options = RunningStackOptions.withStandInApple(engine: engine)
        options.gatewayHTTP = true
        let standIn = options.prepare
        options.prepare = { directory in
            var environment = try await standIn?(directory) ?? [:]
            let kek = directory.appendingPathComponent("signing-key-encryption-key")
            try Data((Data(SecureRandom.bytes(count: 32)).base64EncodedString() + "\n").utf8).write(to: kek)
            var identity = try await FakeAppleTokenEndpoint.shared().environment(directory: directory)
            identity["FOYER_SIGNING_KEY_ENCRYPTION_KEY_FILE"] = kek.path
            environment[.identity, default: [:]].merge(identity) { $1 }
            return environment
        }
        return options
    }
}

/// What the app sends: a fresh Apple ID token for `subject` with its raw nonce, and `code`.
private func credential(_ stack: RunningStack, subject: String, code: String?) async throws -> Credential {
    let nonce = TestNonce()
    let token = try await StandInApple.token(stack, subject: subject, nonce: nonce)
    return .idToken(provider: .apple, idToken: token, rawNonce: nonce.raw, authorizationCode: code)
}

/// A code the fake exchanges for the refresh token `rt-<code>`.
private func goodCode() -> String { "good-\(UUID().uuidString)" }

/// A new guest on `client` that links a new Apple identity with `code`; its session.
private func guestLinkingApple(_ client: FoyerClient, _ stack: RunningStack, code: String) async throws -> SessionTokens
{
    let guest = try await client.signInAsGuest()
    let linked = try await client.link(try await credential(stack, subject: StandInApple.newSubject(), code: code))
    #expect(linked.outcome == .linked)
    return guest
}

/// A guest links Apple with a code: identity exchanges it (client secret checked as Apple would), keeps the refresh
/// token sealed (not in clear in its table); deleting the account revokes that token at Apple and leaves no row.
func appleRevocationJourney(_ stack: RunningStack) async throws {
    let apple = try await FakeAppleTokenEndpoint.shared()
    let code = goodCode()
    let refreshToken = "rt-\(code)"
    try await stack.withClient { client async throws in
        let guest = try await guestLinkingApple(client, stack, code: code)

        let exchanges = apple.calls("/auth/token", "code", code)
        #expect(exchanges.count == 1)
        for call in exchanges {
            try apple.expectAuthenticated(call)
            #expect(call.form["grant_type"] == "authorization_code")
        }
        let row = try #require(try await stack.databases.appleToken(of: guest.uid))
        let sealed = try #require(row.sealed, "the token is kept")
        #expect(row.kekID != nil)
        #expect(Data(sealed).range(of: Data(refreshToken.utf8)) == nil, "the token is not stored in clear")
        #expect(row.exchangeError == nil)

        _ = try await client.deleteAccount()
        let revocations = apple.calls("/auth/revoke", "token", refreshToken)
        #expect(revocations.count == 1)
        for call in revocations {
            try apple.expectAuthenticated(call)
            #expect(call.form["token_type_hint"] == "refresh_token")
        }
        #expect(try await stack.databases.appleToken(of: guest.uid) == nil)
        #expect(try await stack.databases.state(of: guest.uid) == nil)
    }
}

/// The app signs in over the HTTP edge (the code in the JSON credential's `authorizationCode`); Apple answers 503 to
/// the revocation: the deletion fails `apple-unavailable`, the user stays `deleting` with its token kept; once
/// Apple answers, cleanup's recovery finishes the deletion and the revocation arrives.
func appleDownAtDeletionJourney(_ stack: RunningStack) async throws {
    let apple = try await FakeAppleTokenEndpoint.shared()
    let code = goodCode()
    let refreshToken = "rt-\(code)"
    let session = try await stack.withClient(adjust: { $0.httpBaseURL = URL(string: stack.httpBaseURL) }) { client in
        try await client.signIn(with: try await credential(stack, subject: StandInApple.newSubject(), code: code))
    }
    #expect(apple.calls("/auth/token", "code", code).count == 1, "the code came through the HTTP edge")
    let uid = try await stack.withClient(session: session) { client async throws in
        #expect(try await stack.databases.appleToken(of: session.uid)?.sealed != nil)
        apple.refuse(refreshToken)
        let failure = await foyerFailure { try await client.deleteAccount() }
        #expect(failure == .appleUnavailable, "\(String(describing: failure))")
        return session.uid
    }
    #expect(try await stack.databases.state(of: uid) == "deleting")
    #expect(try await stack.databases.appleToken(of: uid)?.sealed != nil, "kept for the next attempt")
    let refusedAttempts = apple.calls("/auth/revoke", "token", refreshToken).count
    #expect(refusedAttempts >= 1)

    apple.allow(refreshToken)
    _ = try await stack.sweep()
    #expect(try await stack.databases.state(of: uid) == nil, "recovery finished the deletion")
    #expect(try await stack.databases.appleToken(of: uid) == nil)
    let revocations = apple.calls("/auth/revoke", "token", refreshToken)
    #expect(revocations.count == refusedAttempts + 1, "one more attempt, accepted")
    if let last = revocations.last { try apple.expectAuthenticated(last) }
}

/// A sign-in without a code keeps nothing; one whose code Apple refuses still signs in and keeps only the record
/// of the failure. Neither deletion calls Apple's revoke, and identity's log says there was no token.
func appleNoTokenJourney(_ stack: RunningStack) async throws {
    let apple = try await FakeAppleTokenEndpoint.shared()
    let refusedCode = "bad-\(UUID().uuidString)"
    for code in [nil, refusedCode] {
        try await stack.withClient { client async throws in
            let session = try await client.signIn(
                with: try await credential(stack, subject: StandInApple.newSubject(), code: code)
            )
            let row = try await stack.databases.appleToken(of: session.uid)
            if code == nil {
                #expect(row == nil)
            } else {
                #expect(apple.calls("/auth/token", "code", refusedCode).count == 1)
                #expect(row?.sealed == nil)
                #expect(row?.exchangeError != nil, "the failed exchange is recorded")
            }
            _ = try await client.deleteAccount()
            #expect(try await stack.databases.state(of: session.uid) == nil)
            #expect(try await stack.databases.appleToken(of: session.uid) == nil)
            // identity's finishDelete revokes what it kept: without a code nothing; after a refused exchange it
            // forgets the record of the failure and says so.
            let logged = stack.processes.logTail(of: .identity, lines: 2000).split(separator: "\n").filter {
                $0.contains(session.uid) && $0.contains("Sign in with Apple")
            }
            if code == nil {
                #expect(logged.isEmpty, "nothing to revoke: \(logged)")
            } else {
                #expect(logged.contains { $0.contains("no token to revoke") }, "\(logged)")
            }
        }
    }
    #expect(apple.calls("/auth/revoke", "token", "rt-\(refusedCode)").isEmpty)
}

/// A member with an email and password who then linked Apple with a code unlinks Apple (the newest credential, so
/// no probation stands in the way): identity revokes the kept token at Apple and forgets it. With Apple answering
/// 503, the unlink still succeeds, the token stays, and the account's deletion revokes it.
func appleUnlinkJourney(_ stack: RunningStack) async throws {
    let apple = try await FakeAppleTokenEndpoint.shared()
    for appleDown in [false, true] {
        let code = goodCode()
        let refreshToken = "rt-\(code)"
        try await stack.withClient { client async throws in
            let guest = try await client.signInAsGuest()
            let email = "unlink-\(UUID().uuidString.lowercased())@example.com"
            #expect(try await client.link(email: email, password: "a fine passphrase").outcome == .linked)
            // Linking to a member is a step-up action; the session the email link started is fresh.
            let linked = try await client.link(
                try await credential(stack, subject: StandInApple.newSubject(), code: code)
            )
            #expect(linked.outcome == .linked)
            #expect(try await stack.databases.appleToken(of: guest.uid)?.sealed != nil)
            if appleDown { apple.refuse(refreshToken) }

            try await client.unlinkCredential(.apple)
            let revocations = apple.calls("/auth/revoke", "token", refreshToken)
            #expect(revocations.count == 1)
            for call in revocations {
                try apple.expectAuthenticated(call)
                #expect(call.form["token_type_hint"] == "refresh_token")
            }
            guard appleDown else {
                #expect(try await stack.databases.appleToken(of: guest.uid) == nil)
                return
            }
            #expect(try await stack.databases.appleToken(of: guest.uid)?.sealed != nil, "kept for the deletion")
            apple.allow(refreshToken)
            _ = try await client.deleteAccount()
            #expect(apple.calls("/auth/revoke", "token", refreshToken).count == 2)
            #expect(try await stack.databases.appleToken(of: guest.uid) == nil)
        }
    }
}

/// The command line passes the code on: `foyer sign-in --provider apple --id-token … --raw-nonce …
/// --authorization-code …`, then `foyer delete-account`, each exiting 0, Apple seeing the exchange, then the
/// revocation.
func appleCommandLineJourney(_ stack: RunningStack) async throws {
    let apple = try await FakeAppleTokenEndpoint.shared()
    let code = goodCode()
    let nonce = TestNonce()
    let token = try await StandInApple.token(stack, subject: StandInApple.newSubject(), nonce: nonce)
    let session = stack.directory.appendingPathComponent("cli-\(UUID().uuidString).json").path
    let gateway = ["--gateway", "127.0.0.1:\(stack.processes.port(of: .gateway))", "--session", session]
    let signIn = try await runFoyer(
        ["sign-in"] + gateway + [
            "--provider", "apple", "--id-token", token, "--raw-nonce", nonce.raw, "--authorization-code", code,
        ],
        stack
    )
    #expect(signIn == 0)
    #expect(apple.calls("/auth/token", "code", code).count == 1)
    #expect(try await runFoyer(["delete-account"] + gateway, stack) == 0)
    #expect(apple.calls("/auth/revoke", "token", "rt-\(code)").count == 1)
}

/// Runs the `foyer` built beside the services (without the FOYER_ variables of the test's environment) and returns
/// its exit status.
private func runFoyer(_ arguments: [String], _ stack: RunningStack) async throws -> Int32 {
    let process = Process()
    process.executableURL = stack.processes.configuration.binDirectory.appendingPathComponent("foyer")
    process.arguments = arguments
    process.environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("FOYER_") }
    process.standardOutput = FileHandle.nullDevice
    process.standardError = FileHandle.nullDevice
    return try await withCheckedThrowingContinuation { continuation in
        process.terminationHandler = { continuation.resume(returning: $0.terminationStatus) }
        do {
            try process.run()
        } catch {
            continuation.resume(throwing: error)
        }
    }
}

/// One row of identity's `identity_apple_tokens`.
struct AppleTokenRow: Equatable {
    var sealed: [UInt8]?
    var kekID: String?
    var exchangeError: String?
}

extension StackDatabases {
    /// `uid`'s row in identity's `identity_apple_tokens`, nil when it has none.
    func appleToken(of uid: String) async throws -> AppleTokenRow? {
        try await identity.withConnection { sql in
            try await sql.raw(
                "SELECT sealed_token, kek_id, exchange_error FROM identity_apple_tokens WHERE uid = \(bind: uid)"
            ).first().map { row in
                AppleTokenRow(
                    sealed: try row.decodeOptionalBytes(column: "sealed_token"),
                    kekID: try row.decode(column: "kek_id", as: String?.self),
                    exchangeError: try row.decode(column: "exchange_error", as: String?.self)
                )
            }
        }
    }
}
