import Foundation
import FoyerAPI
import FoyerIdentity
import FoyerRPC
import FoyerStorage
import FoyerTestSupport
import Testing

/// The outbox (local mode): it needs local mode, and it does not keep addresses longer than it must.
@Suite("Outbox")
struct OutboxTests {
    private func sendLink(
        _ identity: IdentityHarness,
        to email: String,
        purpose: EmailLinkPurpose = .signIn,
        uid: String? = nil
    ) async throws {
        try await identity.call(
            IdentityMethods.startEmailLink,
            StartEmailLinkRequest(purpose: purpose, email: email, uid: uid, verifierChallenge: LinkVerifier().challenge)
        )
    }

    @Test(
        "The outbox mailer stops the start outside local mode; in local mode the start warns",
        arguments: [TestEngine.sqlite]
    )
    func needsLocalMode(engine: TestEngine) async throws {
        try await withTestDatabase(engine) { database in
            var configuration = testIdentityConfiguration(database: database.configuration, clock: TestClock())
            configuration.mailer = .outbox
            configuration.localMode = false
            await #expect(throws: IdentityConfigurationError.self) {
                try await IdentityService.make(
                    configuration: configuration,
                    database: database,
                    server: testServerConfiguration(service: "identity"),
                    logger: TestLogging.logger("foyer.identity")
                )
            }
            configuration.localMode = true
            let logs = CapturedLog()
            let service = try await IdentityService.make(
                configuration: configuration,
                database: database,
                server: testServerConfiguration(service: "identity"),
                logger: logs.logger()
            )
            try await service.close()
            #expect(logs.text.contains("LOCAL MODE"))
        }
    }

    @Test(
        "The janitor deletes outbox messages older than the retention, and keeps newer ones",
        arguments: TestEngine.allCases
    )
    func retention(engine: TestEngine) async throws {
        let clock = TestClock()
        try await withIdentity(engine, clock: clock) { identity in
            #expect(identity.configuration.emailLink.outboxRetention == .seconds(3600))
            try await sendLink(identity, to: "old@example.com")
            clock.advance(by: .seconds(1800))
            try await sendLink(identity, to: "new@example.com")
            clock.advance(by: .seconds(1801))
            try await identity.service.runMaintenance()
            #expect(try await identity.count("identity_outbox", where: "recipient", is: "old@example.com") == 0)
            #expect(try await identity.count("identity_outbox", where: "recipient", is: "new@example.com") == 1)
            clock.advance(by: .seconds(1800))
            try await identity.service.runMaintenance()
            #expect(try await identity.count("identity_outbox") == 0)
        }
    }

    @Test(
        "Deleting a user deletes the outbox messages to its address and to an address it was sent a link for",
        arguments: TestEngine.allCases
    )
    func deletion(engine: TestEngine) async throws {
        try await withIdentity(engine) { identity in
            let member = try await identity.newGuest()
            _ = try await identity.call(
                IdentityMethods.linkPassword,
                LinkPasswordRequest(uid: member.uid, email: "owner@example.com", password: "owner password")
            ).linked()
            try await sendLink(identity, to: "owner@example.com")
            // A link email for an address the user never proved: the outbox row has no uid, only the address.
            try await sendLink(identity, to: "unproved@example.com", purpose: .link, uid: member.uid)
            try await sendLink(identity, to: "bystander@example.com")
            #expect(try await identity.count("identity_outbox") == 3)

            _ = try await identity.call(
                IdentityMethods.beginDelete,
                BeginDeleteRequest(uid: member.uid, operationID: "delete-member")
            )
            try await identity.call(
                IdentityMethods.finishDelete,
                FinishDeleteRequest(uid: member.uid, operationID: "delete-member")
            )
            #expect(try await identity.count("identity_outbox", where: "recipient", is: "owner@example.com") == 0)
            #expect(try await identity.count("identity_outbox", where: "recipient", is: "unproved@example.com") == 0)
            #expect(try await identity.count("identity_outbox", where: "recipient", is: "bystander@example.com") == 1)
        }
    }
}
