import Foundation
import FoyerAPI
import FoyerCrypto
import FoyerIdentity
import FoyerRPC
import FoyerTestSupport
import FoyerWire
import Testing

/// The per-source budget in front of password hashing (issue: one host must not exhaust the hashing pool).
@Suite("Password hashing budget per client source")
struct PasswordBudgetTests {
    /// A member with `email` and `password`, signed up without a client source (as an internal caller).
    private func member(_ identity: IdentityHarness, _ email: String, _ password: String) async throws -> String {
        let guest = try await identity.newGuest()
        _ = try await identity.call(
            IdentityMethods.linkPassword,
            LinkPasswordRequest(uid: guest.uid, email: email, password: password)
        ).linked()
        return guest.uid
    }

    private func randomAddress() -> String {
        "nobody-\(Base64URL.encode(SecureRandom.bytes(count: 9)))@example.com"
    }

    @Test(
        "At the pool's real cap, one source's sign-ins to random addresses are throttled; another source signs in",
        arguments: TestEngine.allCases
    )
    func floodFromOneSource(engine: TestEngine) async throws {
        try await withIdentity(engine) { identity in
            // The pool as deployed: 2 hashes at once, 64 waiting; the default budget of 10 at once per source.
            let policy = identity.configuration.password
            #expect(policy.hashConcurrencyMax == 2 && policy.hashQueueMax == 64)
            #expect(policy.perSourceHashBurst == 10 && policy.perSourceHashesPerMinute == 10)
            let owner = try await member(identity, "owner@example.com", "the owner's passphrase")
            let hashesBefore = identity.service.statistics.passwordHashes

            // Source A sends 200 sign-ins to random addresses at once (three times what the pool can hold); the
            // owner signs in from source B in the middle of it.
            enum Outcome: Sendable {
                case attacker(RPCStatus?)
                case owner(Result<String, RPCError>)
            }
            let outcomes = await withTaskGroup(of: Outcome.self) { group in
                for index in 0..<200 {
                    if index == 100 {
                        group.addTask {
                            do {
                                let session = try await signIn(
                                    identity,
                                    "owner@example.com",
                                    "the owner's passphrase",
                                    from: "198.51.100.20"
                                )
                                return .owner(.success(session.uid))
                            } catch let error as RPCError {
                                return .owner(.failure(error))
                            } catch {
                                return .owner(.failure(RPCError(.internal, "\(error)")))
                            }
                        }
                    }
                    group.addTask {
                        .attacker(
                            await status {
                                try await signIn(identity, randomAddress(), "guess", from: "203.0.113.7")
                            }
                        )
                    }
                }
                return await group.reduce(into: [Outcome]()) { $0.append($1) }
            }
            var attacker: [RPCStatus?] = []
            var ownerResult: Result<String, RPCError>?
            for outcome in outcomes {
                switch outcome {
                case .attacker(let status): attacker.append(status)
                case .owner(let result): ownerResult = result
                }
            }
            // Source A got exactly its burst of checks; everything else was refused before any hashing slot.
            #expect(attacker.count(where: { $0 == IdentityStatus.invalidCredentials }) == 10)
            #expect(attacker.count(where: { $0 == IdentityStatus.tooManyAttempts }) == 190)
            #expect(!attacker.contains(IdentityStatus.passwordHashingBusy))
            // Source B was neither throttled nor refused as busy.
            guard case .success(let ownerUID)? = ownerResult else {
                Issue.record("the owner's sign-in did not succeed: \(String(describing: ownerResult))")
                return
            }
            #expect(ownerUID == owner)
            #expect(identity.service.statistics.passwordHashes == hashesBefore + 11)
        }
    }

    @Test(
        "A throttled source is told when to come back, and gets one more check per 6 s",
        arguments: TestEngine.allCases
    )
    func refill(engine: TestEngine) async throws {
        try await withIdentity(engine) { identity in
            for _ in 0..<10 {
                #expect(
                    await status { try await signIn(identity, randomAddress(), "guess", from: "192.0.2.1") }
                        == IdentityStatus.invalidCredentials
                )
            }
            let refused = try await rpcError { try await signIn(identity, randomAddress(), "guess", from: "192.0.2.1") }
            #expect(refused.status == IdentityStatus.tooManyAttempts)
            #expect(refused.retryAfterMilliseconds == 6000)
            #expect(IdentityStatus.tooManyAttempts.retryClass == .rejected)

            identity.clock.advance(by: .seconds(6))
            #expect(
                await status { try await signIn(identity, randomAddress(), "guess", from: "192.0.2.1") }
                    == IdentityStatus.invalidCredentials
            )
            #expect(
                await status { try await signIn(identity, randomAddress(), "guess", from: "192.0.2.1") }
                    == IdentityStatus.tooManyAttempts
            )
            // A minute refills the whole burst.
            identity.clock.advance(by: .seconds(60))
            for _ in 0..<10 {
                #expect(
                    await status { try await signIn(identity, randomAddress(), "guess", from: "192.0.2.1") }
                        == IdentityStatus.invalidCredentials
                )
            }
        }
    }

    @Test(
        "Sign-up with a password and a link to a taken address spend the same budget, and are refused before hashing",
        arguments: TestEngine.allCases
    )
    func everyHashingCallIsBudgeted(engine: TestEngine) async throws {
        try await withIdentity(engine, configure: { $0.password.perSourceHashBurst = 3 }) { identity in
            _ = try await member(identity, "taken@example.com", "the owner's passphrase")
            let guests = [try await identity.newGuest(), try await identity.newGuest(), try await identity.newGuest()]
            let source = "2001:db8:1:2::10"
            // One sign-up, one link to a taken address (checks that account's password), one sign-in: the burst.
            _ = try await identity.call(
                IdentityMethods.linkPassword,
                LinkPasswordRequest(
                    uid: guests[0].uid,
                    email: "new@example.com",
                    password: "a new passphrase",
                    source: source
                )
            ).linked()
            #expect(
                await identity.status(
                    IdentityMethods.linkPassword,
                    LinkPasswordRequest(
                        uid: guests[1].uid,
                        email: "taken@example.com",
                        password: "a wrong guess",
                        source: source
                    )
                ) == IdentityStatus.emailAlreadyInUse
            )
            #expect(
                await status { try await signIn(identity, "new@example.com", "a wrong guess", from: source) }
                    == IdentityStatus.invalidCredentials
            )
            let hashes = identity.service.statistics.passwordHashes
            // Then all three ways are refused without hashing.
            #expect(
                await identity.status(
                    IdentityMethods.linkPassword,
                    LinkPasswordRequest(
                        uid: guests[2].uid,
                        email: "other@example.com",
                        password: "another passphrase",
                        source: source
                    )
                ) == IdentityStatus.tooManyAttempts
            )
            #expect(
                await identity.status(
                    IdentityMethods.linkPassword,
                    LinkPasswordRequest(
                        uid: guests[1].uid,
                        email: "taken@example.com",
                        password: "the owner's passphrase",
                        source: source
                    )
                ) == IdentityStatus.tooManyAttempts
            )
            #expect(
                await status { try await signIn(identity, "new@example.com", "a new passphrase", from: source) }
                    == IdentityStatus.tooManyAttempts
            )
            #expect(identity.service.statistics.passwordHashes == hashes)
            // The guest that was refused is still a guest.
            let user = try await identity.call(IdentityMethods.getUser, IdentityUserRequest(uid: guests[2].uid))
            #expect(user.isAnonymous && user.email == nil)
        }
    }

    @Test(
        "Sources are IPv4 addresses and IPv6 /48 networks; internal callers are not budgeted",
        arguments: [TestEngine.sqlite]
    )
    func sourceKeys(engine: TestEngine) async throws {
        try await withIdentity(engine, configure: { $0.password.perSourceHashBurst = 2 }) { identity in
            func attempt(_ source: String) async -> RPCStatus? {
                await status { try await signIn(identity, randomAddress(), "guess", from: source) }
            }
            // Two addresses of one /48, in different /64s, share a budget; the next /48 has its own.
            #expect(await attempt("2001:db8:0:1::1") == IdentityStatus.invalidCredentials)
            #expect(await attempt("2001:db8:0:ffff:ffff:ffff:ffff:ffff") == IdentityStatus.invalidCredentials)
            #expect(await attempt("2001:db8:0:2::1") == IdentityStatus.tooManyAttempts)
            #expect(await attempt("2001:db8:1:1::1") == IdentityStatus.invalidCredentials)
            // An IPv4-mapped IPv6 address is its IPv4 address; neighbouring IPv4 addresses are separate.
            #expect(await attempt("192.0.2.9") == IdentityStatus.invalidCredentials)
            #expect(await attempt("::ffff:192.0.2.9") == IdentityStatus.invalidCredentials)
            #expect(await attempt("192.0.2.9") == IdentityStatus.tooManyAttempts)
            #expect(await attempt("192.0.2.10") == IdentityStatus.invalidCredentials)
            // Text that is not an address is one source of its own.
            #expect(await attempt("unknown") == IdentityStatus.invalidCredentials)
            #expect(await attempt("unknown") == IdentityStatus.invalidCredentials)
            #expect(await attempt("unknown") == IdentityStatus.tooManyAttempts)
            // No source: an internal caller, limited by the pool only.
            for _ in 0..<5 { #expect(await attempt("") == IdentityStatus.invalidCredentials) }
        }
    }

    @Test(
        "Memory is bounded: past hashBudgetSourcesMax sources the least recently seen is forgotten",
        arguments: [TestEngine.sqlite]
    )
    func boundedSources(engine: TestEngine) async throws {
        try await withIdentity(
            engine,
            configure: { configuration in
                configuration.password.perSourceHashBurst = 1
                configuration.password.hashBudgetSourcesMax = 4
            }
        ) { identity in
            func attempt(_ source: String) async -> RPCStatus? {
                await status { try await signIn(identity, randomAddress(), "guess", from: source) }
            }
            #expect(await attempt("192.0.2.1") == IdentityStatus.invalidCredentials)
            #expect(await attempt("192.0.2.1") == IdentityStatus.tooManyAttempts)
            for last in 2...4 {
                identity.clock.advance(by: .seconds(1))
                #expect(await attempt("192.0.2.\(last)") == IdentityStatus.invalidCredentials)
            }
            // Four sources held: 192.0.2.1 is still remembered.
            #expect(await attempt("192.0.2.1") == IdentityStatus.tooManyAttempts)
            // A fifth makes room by forgetting the least recently seen one, which starts with a full budget again.
            identity.clock.advance(by: .seconds(1))
            #expect(await attempt("192.0.2.5") == IdentityStatus.invalidCredentials)
            #expect(await attempt("192.0.2.2") == IdentityStatus.invalidCredentials)
            #expect(await attempt("192.0.2.5") == IdentityStatus.tooManyAttempts)
        }
    }
}
