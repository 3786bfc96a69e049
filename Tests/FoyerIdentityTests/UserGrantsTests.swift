import Foundation
import FoyerAPI
import FoyerIdentity
import FoyerRPC
import FoyerTestSupport
import FoyerWire
import NIOCore
import Testing

/// The plan and app-defined roles named in access tokens (`setUserPlan`, `setUserRoles`).
@Suite("Plans and roles in access tokens")
struct UserGrantsTests {
    private func refresh(_ identity: IdentityHarness, _ session: SessionTokens) async throws -> SessionTokens {
        try await identity.call(
            IdentityMethods.refreshSession,
            RefreshSessionRequest(refreshToken: session.refreshToken)
        )
    }

    @Test(
        "A guest's tokens name the guest plan and no roles; set ones appear at the next refresh, not before",
        arguments: TestEngine.allCases
    )
    func setAndRefresh(engine: TestEngine) async throws {
        try await withIdentity(engine) { identity in
            let guest = try await identity.newGuest()
            var claims = try decodeClaims(guest.accessToken)
            #expect(claims.plan == "guest" && claims.roles == [])

            try await identity.call(IdentityMethods.setUserPlan, SetUserPlanRequest(uid: guest.uid, plan: "trial"))
            try await identity.call(
                IdentityMethods.setUserRoles,
                SetUserRolesRequest(uid: guest.uid, roles: ["editor", "app:beta", "editor"])
            )
            // The token already issued still says what it said.
            #expect(try decodeClaims(guest.accessToken).plan == "guest")

            identity.clock.advance(by: .seconds(1))
            let refreshed = try await refresh(identity, guest)
            claims = try decodeClaims(refreshed.accessToken)
            #expect(claims.plan == "trial")
            #expect(claims.roles == ["app:beta", "editor"])

            let found = try await identity.call(IdentityMethods.findUser, FindUserRequest(by: .uid, value: guest.uid))
            #expect(found.roles == ["app:beta", "editor"])

            try await identity.call(IdentityMethods.setUserRoles, SetUserRolesRequest(uid: guest.uid, roles: []))
            identity.clock.advance(by: .seconds(1))
            #expect(try decodeClaims(try await refresh(identity, refreshed).accessToken).roles == [])
        }
    }

    @Test(
        "A guest that links moves to the member plan, a plan set for it as a guest dropped; its roles stay",
        arguments: TestEngine.allCases
    )
    func linkMovesToMemberPlan(engine: TestEngine) async throws {
        try await withIdentity(engine) { identity in
            let guest = try await identity.newGuest()
            try await identity.call(IdentityMethods.setUserPlan, SetUserPlanRequest(uid: guest.uid, plan: "trial"))
            try await identity.call(IdentityMethods.setUserRoles, SetUserRolesRequest(uid: guest.uid, roles: ["vip"]))
            let member = try await identity.call(
                IdentityMethods.linkPassword,
                LinkPasswordRequest(uid: guest.uid, email: "grants@example.com", password: "a long passphrase")
            ).linked()
            var claims = try decodeClaims(member.accessToken)
            #expect(claims.plan == "member" && claims.roles == ["vip"] && !claims.is_anonymous)

            try await identity.call(IdentityMethods.setUserPlan, SetUserPlanRequest(uid: guest.uid, plan: "pro"))
            let signedIn = try await signIn(identity, "grants@example.com", "a long passphrase")
            claims = try decodeClaims(signedIn.accessToken)
            #expect(claims.plan == "pro" && claims.roles == ["vip"])
        }
    }

    @Test(
        "Setting another plan writes plan.changed; setting the same one again writes nothing",
        arguments: TestEngine.allCases
    )
    func planChangedEvent(engine: TestEngine) async throws {
        try await withIdentity(engine, configure: EventOutboxTests.withWebhooks) { identity in
            let guest = try await identity.newGuest()
            try await identity.call(IdentityMethods.setUserPlan, SetUserPlanRequest(uid: guest.uid, plan: "guest"))
            try await identity.call(IdentityMethods.setUserPlan, SetUserPlanRequest(uid: guest.uid, plan: "trial"))
            try await identity.call(IdentityMethods.setUserPlan, SetUserPlanRequest(uid: guest.uid, plan: "trial"))
            try await identity.call(IdentityMethods.setUserRoles, SetUserRolesRequest(uid: guest.uid, roles: ["vip"]))
            let page = try await identity.call(IdentityMethods.listEvents, ListEventsRequest(uid: guest.uid))
            let events = page.events.reversed().map { $0 }
            #expect(events.map(\.type) == ["user.created", "plan.changed"])
            let data = try JSONValueReader.object(events[1].body)["data"] as? [String: Any]
            #expect(
                data?["from"] as? String == "guest" && data?["to"] as? String == "trial",
                "\(String(describing: data))"
            )
        }
    }

    @Test("Bad names, too many roles and unknown users are refused", arguments: [TestEngine.sqlite])
    func refusals(engine: TestEngine) async throws {
        try await withIdentity(engine) { identity in
            let guest = try await identity.newGuest()
            for plan in ["", "Pro", "pro plan", "a,b", "x:y", String(repeating: "p", count: 65)] {
                #expect(
                    await identity.status(IdentityMethods.setUserPlan, SetUserPlanRequest(uid: guest.uid, plan: plan))
                        == .invalidArgument,
                    "plan '\(plan)'"
                )
            }
            for role in ["", "Admin", "a,b", "a b", String(repeating: "r", count: 65)] {
                #expect(
                    await identity.status(
                        IdentityMethods.setUserRoles,
                        SetUserRolesRequest(uid: guest.uid, roles: ["ok", role])
                    ) == .invalidArgument,
                    "role '\(role)'"
                )
            }
            #expect(
                await identity.status(IdentityMethods.setUserPlan, SetUserPlanRequest(uid: "nobody", plan: "pro"))
                    == IdentityStatus.userNotFound
            )
            #expect(
                await identity.status(IdentityMethods.setUserRoles, SetUserRolesRequest(uid: "nobody", roles: []))
                    == IdentityStatus.userNotFound
            )
            // The decoder refuses a 17th role before identity sees it.
            var body = ByteBuffer()
            SetUserRolesRequest(uid: guest.uid, roles: (0..<17).map { "r\($0)" }).encode(into: &body)
            #expect(throws: WireError.self) { _ = try SetUserRolesRequest(decoding: body) }
            // Nothing was changed by the refusals.
            #expect(try decodeClaims(try await refresh(identity, guest).accessToken).roles == [])
        }
    }
}
