import Foundation
import FoyerAPI
import FoyerRPC
import FoyerTestSupport
import FoyerWire
import Testing

@Suite("Admin: listing, counting and finding users")
struct UserListingTests {
    /// Guests and members created and active at shared instants (so the listing meets ties), one guest being
    /// deleted and one being merged; answers every user as `getUser` sees it.
    private func population(_ identity: IdentityHarness) async throws -> [UserInfo] {
        var uids: [String] = []
        for _ in 0..<3 { uids.append(try await identity.newGuest().uid) }
        identity.clock.advance(by: .seconds(1))
        for index in 0..<2 {
            let guest = try await identity.newGuest()
            _ = try await identity.call(
                IdentityMethods.linkPassword,
                LinkPasswordRequest(uid: guest.uid, email: "Member\(index)@Example.com", password: "member password")
            ).linked()
            uids.append(guest.uid)
        }
        identity.clock.advance(by: .seconds(1))
        var late: [SessionTokens] = []
        for _ in 0..<3 { late.append(try await identity.newGuest()) }
        uids += late.map { $0.uid }
        let deleting = uids[7]
        _ = try await identity.call(IdentityMethods.beginDelete, BeginDeleteRequest(uid: deleting, operationID: "d"))
        let merging = try #require(late.first { $0.uid == uids[6] })
        _ = try await identity.call(
            IdentityMethods.link,
            .password(merging, email: "member0@example.com", password: "member password", operationID: "m")
        ).begun()
        identity.clock.advance(by: .seconds(700))
        for uid in [uids[0], uids[3], uids[5]] {
            try await identity.call(IdentityMethods.recordActivity, IdentityUserRequest(uid: uid))
        }
        identity.clock.advance(by: .seconds(700))
        try await identity.call(IdentityMethods.recordActivity, IdentityUserRequest(uid: uids[1]))
        var users: [UserInfo] = []
        for uid in uids {
            users.append(try await identity.call(IdentityMethods.getUser, IdentityUserRequest(uid: uid)))
        }
        return users
    }

    /// Every page of a listing, following `next` until it is absent.
    private func pages(_ identity: IdentityHarness, _ request: ListUsersRequest) async throws -> [[UserSummary]] {
        var request = request
        var pages: [[UserSummary]] = []
        repeat {
            let page = try await identity.call(IdentityMethods.listUsers, request)
            pages.append(page.users)
            request.after = page.next
            #expect(pages.count <= 20)
        } while request.after != nil && pages.count <= 20
        return pages
    }

    @Test(
        "Users are listed in pages by creation or activity, either way, per kind: no duplicate, no gap, ties by uid",
        arguments: TestEngine.allCases
    )
    func listing(engine: TestEngine) async throws {
        try await withIdentity(engine) { identity in
            let users = try await population(identity)
            for kind in UserKind.allCases {
                for order in UserOrder.allCases {
                    for newestFirst in [false, true] {
                        let members = users.filter { user in
                            switch kind {
                            case .guests: user.isAnonymous
                            case .members: !user.isAnonymous
                            case .all: true
                            }
                        }
                        func at(_ user: UserInfo) -> UInt64 {
                            order == .createdAt ? user.createdAtMilliseconds : user.lastActivityAtMilliseconds
                        }
                        var expected = members.sorted { at($0) == at($1) ? $0.uid < $1.uid : at($0) < at($1) }
                        if newestFirst { expected.reverse() }
                        for limit in [1, 2, 3, 100] as [UInt32] {
                            let request = ListUsersRequest(
                                kind: kind,
                                order: order,
                                newestFirst: newestFirst,
                                limit: limit
                            )
                            let listed = try await pages(identity, request)
                            let context = "\(kind) \(order) newestFirst \(newestFirst) limit \(limit)"
                            #expect(listed.flatMap { $0 }.map(\.uid) == expected.map(\.uid), "\(context)")
                            // Every page full but the last, which is never empty unless the listing is.
                            #expect(listed.dropLast().allSatisfy { $0.count == Int(limit) }, "\(context)")
                            #expect(
                                listed.count == max(1, (expected.count + Int(limit) - 1) / Int(limit)),
                                "\(context)"
                            )
                        }
                    }
                }
            }
            // The summaries say what getUser says.
            let all = try await identity.call(IdentityMethods.listUsers, ListUsersRequest(kind: .all, limit: 100))
            for summary in all.users {
                let user = try #require(users.first { $0.uid == summary.uid })
                #expect(
                    summary
                        == UserSummary(
                            uid: user.uid,
                            isAnonymous: user.isAnonymous,
                            state: user.state,
                            createdAtMilliseconds: user.createdAtMilliseconds,
                            lastActivityAtMilliseconds: user.lastActivityAtMilliseconds
                        )
                )
            }
            #expect(Set(all.users.map(\.state.kind)) == [.active, .merging, .deleting])
        }
    }

    @Test(
        "The counts: active guests and members, sign-ups since a time, pending deletions and merges",
        arguments: TestEngine.allCases
    )
    func counts(engine: TestEngine) async throws {
        try await withIdentity(engine) { identity in
            let start = identity.clock.now()
            let users = try await population(identity)
            let second = UInt64(start.timeIntervalSince1970 * 1000) + 1000
            let counts = try await identity.call(
                IdentityMethods.userCounts,
                UserCountsRequest(sinceMilliseconds: second)
            )
            #expect(
                counts
                    == UserCounts(
                        guests: 4,
                        members: 2,
                        createdSince: UInt64(users.filter { $0.createdAtMilliseconds >= second }.count),
                        pendingDeletions: 1,
                        pendingMerges: 1
                    )
            )
            #expect(counts.createdSince == 5)
            let everything = try await identity.call(
                IdentityMethods.userCounts,
                UserCountsRequest(sinceMilliseconds: 0)
            )
            #expect(everything.createdSince == 8)
        }
    }

    @Test(
        "A user is found by uid or by email (as sign-in reads it), with its live sessions",
        arguments: TestEngine.allCases
    )
    func finding(engine: TestEngine) async throws {
        try await withIdentity(engine) { identity in
            let guest = try await identity.newGuest()
            let member = try await identity.call(
                IdentityMethods.linkPassword,
                LinkPasswordRequest(uid: guest.uid, email: "Ann@Example.com", password: "a long passphrase")
            ).linked()
            let byUID = try await identity.call(IdentityMethods.findUser, FindUserRequest(by: .uid, value: member.uid))
            #expect(
                byUID.user == (try await identity.call(IdentityMethods.getUser, IdentityUserRequest(uid: member.uid)))
            )
            #expect(byUID.user.email == "ann@example.com")
            for text in ["ann@example.com", "ANN@EXAMPLE.COM", "Ann@Example.com"] {
                #expect(
                    try await identity.call(IdentityMethods.findUser, FindUserRequest(by: .email, value: text)) == byUID
                )
            }

            // Sessions: another sign-in adds one; a revoked one and an expired one do not count.
            let live = byUID.liveSessions
            #expect(live >= 1)
            let second = try await signIn(identity, "ann@example.com", "a long passphrase")
            func liveSessions() async throws -> UInt64 {
                try await identity.call(IdentityMethods.findUser, FindUserRequest(by: .uid, value: member.uid))
                    .liveSessions
            }
            #expect(try await liveSessions() == live + 1)
            try await identity.call(
                IdentityMethods.revokeSession,
                RevokeSessionRequest(uid: member.uid, sessionID: second.sessionID)
            )
            #expect(try await liveSessions() == live)
            identity.clock.advance(by: identity.configuration.refreshAbsoluteLifetime)
            #expect(try await liveSessions() == 0)

            #expect(
                await identity.status(IdentityMethods.findUser, FindUserRequest(by: .uid, value: "0123456789abcdef"))
                    == IdentityStatus.userNotFound
            )
            #expect(
                await identity.status(
                    IdentityMethods.findUser,
                    FindUserRequest(by: .email, value: "nobody@example.com")
                )
                    == IdentityStatus.userNotFound
            )
            #expect(
                await identity.status(IdentityMethods.findUser, FindUserRequest(by: .email, value: "not an email"))
                    == IdentityStatus.invalidEmail
            )
            // A guest has no email: found by uid only.
            let other = try await identity.newGuest()
            let found = try await identity.call(IdentityMethods.findUser, FindUserRequest(by: .uid, value: other.uid))
            #expect(found.user.isAnonymous && found.user.email == nil && found.liveSessions == 1)
        }
    }
}
