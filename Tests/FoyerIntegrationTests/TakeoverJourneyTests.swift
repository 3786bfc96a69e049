import Foundation
import FoyerAPI
import FoyerClient
import FoyerTestSupport
import Testing

/// The two account takeovers, end to end through the real executables and the client library: a pending email
/// change kept past the steps that should end it, and a stolen old session of a member that adds a way in or deletes
/// the account. identity's recent-sign-in window is 3 s here, so "an old session" takes a few seconds to make.
@Suite("Takeovers through the real executables")
struct TakeoverJourneyTests {
    private static func withStack(_ body: (RunningStack) async throws -> Void) async throws {
        var options = RunningStackOptions()
        options.environment = [.identity: ["FOYER_RECENT_SIGN_IN_SECONDS": "3"]]
        try await withRunningStack(options) { stack in try await body(stack) }
    }

    /// Signs `client` in to `email` by an email link read from the outbox.
    private static func signInByLink(_ client: FoyerClient, _ stack: RunningStack, _ email: String) async throws {
        let verifier = try await client.sendEmailLink(to: email, purpose: .signIn)
        let link = try #require(try await stack.outbox(to: email).first).body
        _ = try await client.completeEmailLink(token: link, verifier: verifier, purpose: .signIn)
    }

    @Test("An email change kept by whoever set up an unproven address, or by a thief, cannot be completed later")
    func keptEmailChanges() async throws {
        try await Self.withStack { stack in
            // Pre-hijack: the attacker signs up the victim's address with a password of their own.
            let victimEmail = uniqueEmail("victim")
            let attackerEmail = uniqueEmail("attacker")
            let (uid, kept, keptVerifier) = try await stack.withClient { attacker async throws in
                try await attacker.signInAsGuest()
                let linked = try #require(try await attacker.link(email: victimEmail, password: password).session)
                let verifier = try await attacker.startEmailChange(to: attackerEmail, currentPassword: password)
                return (linked.uid, try #require(try await stack.outbox(to: attackerEmail).first).body, verifier)
            }
            #expect(
                try await stack.outbox(to: victimEmail).first?.subject == "Someone asked to change your email address"
            )
            try await stack.withClient { victim async throws in
                try await Self.signInByLink(victim, stack, victimEmail)
                #expect(try await victim.me().user.uid == uid)
            }
            try await stack.withClient { attacker async throws in
                #expect(
                    await foyerFailure { try await attacker.completeEmailChange(token: kept, verifier: keptVerifier) }
                        == .tokenExpired
                )
            }
            try await stack.withClient { victim async throws in
                try await Self.signInByLink(victim, stack, victimEmail)
                #expect(try await victim.me().user.email == victimEmail)
            }

            // Persistence: a thief who has the password starts a change; the owner signs out everywhere.
            let ownerEmail = uniqueEmail("owner")
            try await stack.withClient { ownerDevice async throws in
                try await ownerDevice.signInAsGuest()
                _ = try #require(try await ownerDevice.link(email: ownerEmail, password: password).session)
                let thiefEmail = uniqueEmail("thief")
                let (token, verifier) = try await stack.withClient { thief async throws in
                    _ = try await thief.signIn(email: ownerEmail, password: password)
                    let verifier = try await thief.startEmailChange(to: thiefEmail, currentPassword: password)
                    return (try #require(try await stack.outbox(to: thiefEmail).first).body, verifier)
                }
                try await ownerDevice.signOutEverywhere()
                try await stack.withClient { thief async throws in
                    #expect(
                        await foyerFailure { try await thief.completeEmailChange(token: token, verifier: verifier) }
                            == .tokenExpired
                    )
                }
                _ = try await ownerDevice.signIn(email: ownerEmail, password: password)
                #expect(try await ownerDevice.me().user.email == ownerEmail)
            }
        }
    }

    @Test("A member's old session can neither add a sign-in method nor delete the account; a fresh sign-in can")
    func stepUp() async throws {
        try await Self.withStack { stack in
            let email = uniqueEmail("stepup")
            try await stack.withClient { member async throws in
                try await Self.signInByLink(member, stack, email)
                // The window is 3 s: this session is no longer a recent sign-in.
                try await Task.sleep(for: .milliseconds(3500))
                #expect(
                    await foyerFailure { try await member.link(email: email, password: password) }
                        == .recentSignInRequired
                )
                #expect(await foyerFailure { try await member.deleteAccount() } == .recentSignInRequired)
                #expect(try await member.me().user.hasPassword == false)

                try await Self.signInByLink(member, stack, email)
                #expect(try await member.link(email: email, password: password).outcome == .linked)
                let notice = try #require(try await stack.outbox(to: email).first)
                #expect(notice.subject == "A sign-in method of your account changed")
                _ = try await member.deleteAccount()
            }
            // A guest needs no step-up, however old its session.
            try await stack.withClient { guest async throws in
                try await guest.signInAsGuest()
                try await Task.sleep(for: .milliseconds(3500))
                _ = try await guest.deleteAccount()
            }
        }
    }
}
