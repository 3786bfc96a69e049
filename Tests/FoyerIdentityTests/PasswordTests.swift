import Foundation
import FoyerAPI
import FoyerCrypto
import FoyerRPC
import FoyerTestSupport
import FoyerWire
import SQLKit
import Testing

@testable import FoyerIdentity

@Suite("Email and password")
struct PasswordTests {
    private func link(
        _ identity: IdentityHarness,
        _ uid: String,
        _ email: String,
        _ password: String
    ) async throws
        -> SessionTokens
    {
        try await identity.call(
            IdentityMethods.linkPassword,
            LinkPasswordRequest(uid: uid, email: email, password: password)
        ).linked()
    }

    private func storedHash(_ identity: IdentityHarness, _ email: String) async throws -> String {
        try await identity.database.withConnection { sql in
            try await sql.raw("SELECT password_hash FROM identity_emails WHERE email = \(bind: email)")
                .first()!.decode(column: "password_hash", as: String.self)
        }
    }

    @Test(
        "A guest signs up with email and password (same uid, now permanent) and signs in with them",
        arguments: TestEngine.allCases
    )
    func signUpAndSignIn(engine: TestEngine) async throws {
        try await withIdentity(engine) { identity in
            let guest = try await identity.newGuest()
            // 64 characters with spaces and non-ASCII, taken exactly as given.
            let password = "Ünïcødé passphrase with spaces, and it is long enough to pass 64ch"
            let linked = try await link(identity, guest.uid, "Lea@Example.com", password)
            #expect(linked.uid == guest.uid && !linked.isAnonymous)
            let signedIn = try await signIn(identity, "lea@example.com", password)
            #expect(signedIn.uid == guest.uid && !signedIn.isAnonymous && signedIn.sessionID != linked.sessionID)
            #expect(
                await status { try await signIn(identity, "lea@example.com", password + " ") }
                    == IdentityStatus.invalidCredentials
            )
            let user = try await identity.call(IdentityMethods.getUser, IdentityUserRequest(uid: guest.uid))
            #expect(user.email == "lea@example.com" && user.hasPassword && !user.emailVerified && !user.isAnonymous)
            // Salt and parameters are stored with the hash.
            let stored = try await storedHash(identity, "lea@example.com")
            #expect(stored.hasPrefix("$argon2id$v=19$m=1024,t=1,p=1$"))
            // Linking again with the same password is a harmless retry; another email is refused.
            #expect(try await link(identity, guest.uid, "lea@example.com", password).uid == guest.uid)
            #expect(
                await status { try await link(identity, guest.uid, "other@example.com", "another good one") }
                    == IdentityStatus.providerAlreadyLinked
            )
        }
    }

    @Test(
        "Unknown email and wrong password: the same status, one hash each, similar time",
        arguments: [TestEngine.sqlite]
    )
    func noEnumeration(engine: TestEngine) async throws {
        try await withIdentity(
            engine,
            configure: { configuration in
                // Costly enough for the hash to dominate the call.
                configuration.password.argon2 = .interactive
                configuration.failedLogins.freeAttempts = 100
            }
        ) { identity in
            let guest = try await identity.newGuest()
            _ = try await link(identity, guest.uid, "known@example.com", "the right password")
            var known: [Double] = []
            var unknown: [Double] = []
            for round in 0..<7 {
                let before = identity.service.statistics.passwordHashes
                let start = ContinuousClock.now
                let wrong = await status { try await signIn(identity, "known@example.com", "a wrong password") }
                known.append((ContinuousClock.now - start).timeInterval)
                let middle = ContinuousClock.now
                let missing = await status {
                    try await signIn(identity, "nobody\(round)@example.com", "a wrong password")
                }
                unknown.append((ContinuousClock.now - middle).timeInterval)
                #expect(wrong == IdentityStatus.invalidCredentials)
                #expect(missing == IdentityStatus.invalidCredentials)
                #expect(identity.service.statistics.passwordHashes == before + 2)
            }
            let ratio = known.sorted()[3] / unknown.sorted()[3]
            #expect(ratio > 0.5 && ratio < 2, "median times differ too much: known \(known), unknown \(unknown)")
        }
    }

    @Test(
        "Oversized, short and common passwords and bad emails are refused before any hashing",
        arguments: [TestEngine.sqlite]
    )
    func refusedBeforeHashing(engine: TestEngine) async throws {
        try await withIdentity(engine) { identity in
            let guest = try await identity.newGuest()
            let before = identity.service.statistics.passwordHashes
            let overWire = String(repeating: "x", count: IdentityLimits.passwordByteCountMax + 1)
            #expect(await status { try await link(identity, guest.uid, "a@example.com", overWire) } == .invalidArgument)
            #expect(await status { try await signIn(identity, "a@example.com", overWire) } == .invalidArgument)
            let overPolicy = String(repeating: "x", count: 257)
            #expect(
                await status { try await link(identity, guest.uid, "a@example.com", overPolicy) }
                    == IdentityStatus.weakPassword
            )
            #expect(
                await status { try await signIn(identity, "a@example.com", overPolicy) }
                    == IdentityStatus.invalidCredentials
            )
            #expect(
                await status { try await link(identity, guest.uid, "a@example.com", "short") }
                    == IdentityStatus.weakPassword
            )
            #expect(
                await status { try await link(identity, guest.uid, "a@example.com", "Password123") }
                    == IdentityStatus.weakPassword
            )
            let longEmail = String(repeating: "e", count: IdentityLimits.emailByteCountMax + 1) + "@example.com"
            #expect(
                await status { try await link(identity, guest.uid, longEmail, "good password") } == .invalidArgument
            )
            let policyLongEmail = String(repeating: "e", count: 250) + "@example.com"
            #expect(
                await status { try await link(identity, guest.uid, policyLongEmail, "good password") }
                    == IdentityStatus.invalidEmail
            )
            for bad in ["no-at-sign", "a@b", "two@@example.com", "sp ace@example.com", "crlf\r\n@example.com"] {
                #expect(
                    await status { try await link(identity, guest.uid, bad, "good password") }
                        == IdentityStatus.invalidEmail
                )
            }
            #expect(identity.service.statistics.passwordHashes == before)
        }
    }

    @Test(
        "Failed attempts slow an address down progressively, never beyond the cap, and the owner gets back in",
        arguments: TestEngine.allCases
    )
    func progressiveDelay(engine: TestEngine) async throws {
        try await withIdentity(engine) { identity in
            let guest = try await identity.newGuest()
            _ = try await link(identity, guest.uid, "max@example.com", "the right password")
            for _ in 0..<6 {
                #expect(
                    await status { try await signIn(identity, "max@example.com", "wrong guess") }
                        == IdentityStatus.invalidCredentials
                )
            }
            let blocked = try await rpcError { try await signIn(identity, "max@example.com", "the right password") }
            #expect(blocked.status == IdentityStatus.tooManyAttempts)
            #expect(blocked.retryAfterMilliseconds == 1000)
            // Unknown addresses are limited the same way, so the limit says nothing about existence.
            for _ in 0..<6 { _ = await status { try await signIn(identity, "ghost@example.com", "wrong guess") } }
            #expect(
                await status { try await signIn(identity, "ghost@example.com", "wrong guess") }
                    == IdentityStatus.tooManyAttempts
            )

            // Keep guessing as fast as allowed: the wait doubles up to the 60 s cap and no further.
            var waits: [UInt32] = []
            for _ in 0..<9 {
                identity.clock.advance(by: .seconds(61))
                _ = await status { try await signIn(identity, "max@example.com", "wrong guess") }
                waits.append(
                    try await rpcError { try await signIn(identity, "max@example.com", "wrong guess") }
                        .retryAfterMilliseconds
                )
            }
            #expect(waits == [2000, 4000, 8000, 16000, 32000, 60000, 60000, 60000, 60000])
            identity.clock.advance(by: .seconds(60))
            let owner = try await signIn(identity, "max@example.com", "the right password")
            #expect(owner.uid == guest.uid)
            // Success starts the address afresh.
            for _ in 0..<5 { _ = await status { try await signIn(identity, "max@example.com", "wrong guess") } }
            #expect(try await signIn(identity, "max@example.com", "the right password").uid == guest.uid)
        }
    }

    @Test("A hash made with lower parameters is redone at the next sign-in", arguments: TestEngine.allCases)
    func rehashWhenParametersRise(engine: TestEngine) async throws {
        let clock = TestClock()
        try await withTestDatabase(engine) { database in
            let weak = testIdentityConfiguration(database: database.configuration, clock: clock)
            let uid = try await withIdentity(database: database, configuration: weak, clock: clock) { identity in
                let guest = try await identity.newGuest()
                _ = try await link(identity, guest.uid, "rae@example.com", "an old password")
                #expect(try await storedHash(identity, "rae@example.com").hasPrefix("$argon2id$v=19$m=1024,t=1,"))
                return guest.uid
            }
            var stronger = weak
            stronger.password.argon2 = Argon2Parameters(memoryKiB: 2048, iterations: 1, parallelism: 1)
            try await withIdentity(database: database, configuration: stronger, clock: clock) { identity in
                #expect(try await signIn(identity, "rae@example.com", "an old password").uid == uid)
                let rehashed = try await storedHash(identity, "rae@example.com")
                #expect(rehashed.hasPrefix("$argon2id$v=19$m=2048,t=1,p=1$"))
                #expect(try await signIn(identity, "rae@example.com", "an old password").uid == uid)
                #expect(try await storedHash(identity, "rae@example.com") == rehashed)
            }
        }
    }

    @Test(
        "A scrypt hash keeps working and is replaced by Argon2id at the next sign-in; and back, by configuration",
        arguments: TestEngine.allCases
    )
    func rehashAcrossAlgorithms(engine: TestEngine) async throws {
        let clock = TestClock()
        try await withTestDatabase(engine) { database in
            var scrypt = testIdentityConfiguration(database: database.configuration, clock: clock)
            scrypt.password.algorithm = .scrypt
            let uid = try await withIdentity(database: database, configuration: scrypt, clock: clock) { identity in
                let guest = try await identity.newGuest()
                _ = try await link(identity, guest.uid, "sol@example.com", "written by scrypt")
                #expect(try await storedHash(identity, "sol@example.com").hasPrefix("$scrypt$ln=10,r=8,p=1$"))
                return guest.uid
            }
            let argon2 = testIdentityConfiguration(database: database.configuration, clock: clock)
            #expect(argon2.password.algorithm == .argon2id)
            try await withIdentity(database: database, configuration: argon2, clock: clock) {
                (identity: IdentityHarness) async throws in
                let wrong = await status { try await signIn(identity, "sol@example.com", "not the password") }
                #expect(wrong == IdentityStatus.invalidCredentials)
                #expect(try await storedHash(identity, "sol@example.com").hasPrefix("$scrypt$"), "no rehash on failure")
                #expect(try await signIn(identity, "sol@example.com", "written by scrypt").uid == uid)
                #expect(try await storedHash(identity, "sol@example.com").hasPrefix("$argon2id$v=19$m=1024,t=1,p=1$"))
                #expect(try await signIn(identity, "sol@example.com", "written by scrypt").uid == uid)
            }
            try await withIdentity(database: database, configuration: scrypt, clock: clock) {
                (identity: IdentityHarness) async throws in
                #expect(try await signIn(identity, "sol@example.com", "written by scrypt").uid == uid)
                #expect(try await storedHash(identity, "sol@example.com").hasPrefix("$scrypt$ln=10,r=8,p=1$"))
            }
        }
    }

    @Test("Stored hash texts: both algorithms round-trip; anything else is refused")
    func storedForms() throws {
        let salt = [UInt8](repeating: 7, count: PasswordHash.saltByteCount)
        let hash = [UInt8](repeating: 9, count: PasswordHash.hashByteCount)
        for cost in [
            PasswordHash.Cost.argon2id(.interactive), .scrypt(logN: 17, r: 8, p: 1),
        ] {
            let stored = PasswordHash(cost: cost, salt: salt, hash: hash)
            #expect(PasswordHash(text: stored.text) == stored, "\(stored.text)")
        }
        #expect(
            PasswordHash(cost: .argon2id(.interactive), salt: salt, hash: hash).text.hasPrefix(
                "$argon2id$v=19$m=19456,t=2,p=1$BwcHBwcHBwcHBwcHBwcHBw$"
            )
        )
        let tail = "$BwcHBwcHBwcHBwcHBwcHBw$CQkJCQkJCQkJCQkJCQkJCQkJCQkJCQkJCQkJCQkJCQk"
        for refused in [
            "$argon2id$v=16$m=19456,t=2,p=1" + tail, "$argon2i$v=19$m=19456,t=2,p=1" + tail,
            "$argon2id$v=19$m=4,t=2,p=1" + tail, "$argon2id$v=19$m=19456,t=0,p=1" + tail,
            "$argon2id$v=19$m=19456,p=1" + tail, "$argon2id$m=19456,t=2,p=1" + tail, "$scrypt$ln=17,r=8" + tail,
            "$argon2id$v=19$m=19456,t=2,p=1$BwcHBwcHBwcHBwcHBwcHBw$CQkJ", "", "$",
        ] {
            #expect(PasswordHash(text: refused) == nil, "\(refused)")
        }
    }

    @Test(
        "The production parameters: Argon2id m = 19 MiB, t = 2, p = 1; scrypt kept at N = 2^17 with explicit maxmem",
        arguments: [TestEngine.sqlite]
    )
    func productionParameters(engine: TestEngine) async throws {
        try await withIdentity(engine, configure: { $0.password = PasswordPolicy() }) { identity in
            #expect(identity.configuration.password.algorithm == .argon2id)
            #expect(identity.configuration.password.argon2 == .interactive)
            #expect(identity.configuration.password.scrypt == .interactive)
            #expect(identity.configuration.password.scrypt.maxMemoryBytes >= 129 << 20)
            let guest = try await identity.newGuest()
            _ = try await link(identity, guest.uid, "pat@example.com", "production strength")
            #expect(try await storedHash(identity, "pat@example.com").hasPrefix("$argon2id$v=19$m=19456,t=2,p=1$"))
            #expect(try await signIn(identity, "pat@example.com", "production strength").uid == guest.uid)
        }
    }

    @Test(
        "Hashes in flight are capped: a burst gets password-hashing-busy, not unbounded memory",
        arguments: [TestEngine.sqlite]
    )
    func hashingCap(engine: TestEngine) async throws {
        try await withIdentity(
            engine,
            configure: { configuration in
                configuration.password.argon2 = Argon2Parameters(memoryKiB: 64 << 10, iterations: 4, parallelism: 1)
                configuration.password.hashConcurrencyMax = 1
                configuration.password.hashQueueMax = 1
            }
        ) { identity in
            let statuses = await withTaskGroup(of: RPCStatus?.self) { group in
                for index in 0..<12 {
                    group.addTask {
                        await status { try await signIn(identity, "burst\(index)@example.com", "some password") }
                    }
                }
                return await group.reduce(into: [RPCStatus?]()) { $0.append($1) }
            }
            #expect(
                statuses.allSatisfy {
                    $0 == IdentityStatus.invalidCredentials || $0 == IdentityStatus.passwordHashingBusy
                }
            )
            #expect(statuses.contains(IdentityStatus.passwordHashingBusy))
            #expect(IdentityStatus.passwordHashingBusy.retryClass == .notProcessed)
        }
    }
}

extension Duration {
    var timeInterval: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }
}
