import FoyerAPI
import FoyerLifecycle
import Testing

/// The account state machine without a database: every phase against every event, under every answer the facts
/// can give, checked against the rules the lifecycle promises (docs/INVARIANTS.md), and a table of the decisions
/// that matter most.
@Suite("The account state machine, as a value")
struct AccountPhaseTests {
    /// Facts from a table: the phases of other accounts, whether the account is a merge target, whether it is idle.
    struct Facts: LifecycleFacts {
        var phases: [String: AccountPhase] = [:]
        var mergeTarget = false
        var idle = false

        func phase(of uid: String) async throws -> AccountPhase? { phases[uid] }
        func isMergeTarget(_ uid: String) async throws -> Bool { mergeTarget }
        func isIdle(_ uid: String) async throws -> Bool { idle }
    }

    static let phases: [AccountPhase] = [
        .guest, .member,
        .merging(into: "target", operation: "op", policy: .keepNewest),
        .merging(into: "gone", operation: "op", policy: .keepBoth),
        .deleting(operation: "op", reason: .ttl),
    ]

    static let events: [LifecycleEvent] = [
        .beginMerge(into: "target", operation: "op", policy: .keepNewest),
        .beginMerge(into: "target", operation: "other", policy: .keepBoth),
        .beginMerge(into: "me", operation: "op", policy: .keepBoth),
        .beginMerge(into: "gone", operation: "op", policy: .keepBoth),
        .beginMerge(into: "busy", operation: "op", policy: .keepBoth),
        .beginMerge(into: "guest-target", operation: "op", policy: .keepBoth),
        .beginDelete(operation: "op", reason: .ttl, onlyIfIdle: false),
        .beginDelete(operation: "other", reason: .userRequest, onlyIfIdle: false),
        .beginDelete(operation: "op", reason: .ttl, onlyIfIdle: true),
        .finish(operation: "op"),
        .finish(operation: "other"),
    ]

    /// Every combination of the facts' answers.
    static let factSets: [Facts] = [false, true].flatMap { mergeTarget in
        [false, true].map { idle in
            Facts(
                phases: [
                    "target": .member, "busy": .deleting(operation: "x", reason: .userRequest),
                    "guest-target": .guest,
                ],
                mergeTarget: mergeTarget,
                idle: idle
            )
        }
    }

    @Test("Every phase, event and set of facts: the promised rules hold", arguments: phases)
    func rules(phase: AccountPhase) async throws {
        for event in Self.events {
            for facts in Self.factSets {
                let decision = try await phase.decide(event, uid: "me", facts: facts)
                let context = Comment(rawValue: "\(phase) + \(event) with \(facts)")
                switch decision {
                case .move(let next?):
                    // A move only ever leads into a merge or a deletion, from a live account (or, for a deletion,
                    // from a merge whose target is gone), under the event's operation.
                    #expect(!next.isLive, context)
                    #expect(next.operation == Self.operation(of: event), context)
                    let orphaned = AccountPhase.merging(into: "gone", operation: "op", policy: .keepBoth)
                    #expect(phase.isLive || phase == orphaned, context)
                    if case .merging = next { #expect(phase == .guest, context) }
                    if case .beginDelete(_, _, true) = event { #expect(phase == .guest && facts.idle, context) }
                    if case .deleting = next, phase == .member { #expect(!facts.mergeTarget, context) }
                case .move(nil):
                    // Only a finish removes an account, and only the one under way under that operation.
                    guard case .finish(let operation) = event else {
                        Issue.record("\(context): removed by \(event)")
                        continue
                    }
                    #expect(phase.operation == operation, context)
                case .unchanged:
                    // Only a repeat of the very event that put the account where it is.
                    #expect(phase.operation == Self.operation(of: event), context)
                    #expect(!phase.isLive, context)
                case .refuse:
                    break
                }
                // A live account never becomes live again, and an account under way never changes its operation.
                if let operation = phase.operation, case .move(let next?) = decision {
                    #expect(next.operation == operation || next.operation == Self.operation(of: event), context)
                }
            }
        }
    }

    @Test("What each phase allows")
    func allows() {
        for action in AccountPhase.Action.allCases {
            #expect(!AccountPhase.merging(into: "a", operation: "o", policy: .keepBoth).allows(action))
            #expect(!AccountPhase.deleting(operation: "o", reason: .merge).allows(action))
        }
        #expect(AccountPhase.guest.allows(.merge) && !AccountPhase.member.allows(.merge))
        #expect(AccountPhase.member.allows(.beMergeTarget) && !AccountPhase.guest.allows(.beMergeTarget))
        #expect(AccountPhase.member.allows(.changeCredential) && !AccountPhase.guest.allows(.changeCredential))
        for action in [AccountPhase.Action.signIn, .dataCalls, .link, .delete] {
            #expect(AccountPhase.guest.allows(action) && AccountPhase.member.allows(action))
        }
    }

    @Test("The decisions that matter most, one by one")
    func table() async throws {
        let facts = Self.factSets[0]
        let merging = AccountPhase.merging(into: "target", operation: "op", policy: .keepNewest)
        let cases: [(AccountPhase, LifecycleEvent, LifecycleDecision)] = [
            (.guest, .beginMerge(into: "target", operation: "op", policy: .keepNewest), .move(to: merging)),
            (merging, .beginMerge(into: "target", operation: "op", policy: .keepNewest), .unchanged),
            (merging, .beginMerge(into: "target", operation: "other", policy: .keepBoth), .refuse(.busy(merging))),
            (.member, .beginMerge(into: "target", operation: "op", policy: .keepBoth), .refuse(.guestRequired)),
            (.guest, .beginMerge(into: "me", operation: "op", policy: .keepBoth), .refuse(.mergeIntoItself)),
            (.guest, .beginMerge(into: "gone", operation: "op", policy: .keepBoth), .refuse(.targetNotFound)),
            (
                .guest, .beginMerge(into: "busy", operation: "op", policy: .keepBoth),
                .refuse(.targetUnavailable(.deleting(operation: "x", reason: .userRequest)))
            ),
            (
                .guest, .beginDelete(operation: "d", reason: .merge, onlyIfIdle: false),
                .move(to: .deleting(operation: "d", reason: .merge))
            ),
            (.guest, .beginDelete(operation: "d", reason: .ttl, onlyIfIdle: true), .refuse(.stillActive)),
            (.member, .beginDelete(operation: "d", reason: .ttl, onlyIfIdle: true), .refuse(.stillActive)),
            (merging, .beginDelete(operation: "d", reason: .userRequest, onlyIfIdle: false), .refuse(.busy(merging))),
            (
                .merging(into: "gone", operation: "op", policy: .keepBoth),
                .beginDelete(operation: "op", reason: .merge, onlyIfIdle: false),
                .move(to: .deleting(operation: "op", reason: .merge))
            ),
            (merging, .finish(operation: "op"), .move(to: nil)),
            (merging, .finish(operation: "other"), .refuse(.notUnder(operation: "other", phase: merging))),
            (.guest, .finish(operation: "op"), .refuse(.notUnder(operation: "op", phase: .guest))),
        ]
        for (phase, event, expected) in cases {
            #expect(try await phase.decide(event, uid: "me", facts: facts) == expected, "\(phase) + \(event)")
        }
        var target = facts
        target.mergeTarget = true
        #expect(
            try await AccountPhase.member.decide(
                .beginDelete(operation: "d", reason: .userRequest, onlyIfIdle: false),
                uid: "me",
                facts: target
            ) == .refuse(.mergeTargetBusy)
        )
        var idle = facts
        idle.idle = true
        let sweep = LifecycleEvent.beginDelete(operation: "d", reason: .ttl, onlyIfIdle: true)
        #expect(
            try await AccountPhase.guest.decide(sweep, uid: "me", facts: idle)
                == .move(to: .deleting(operation: "d", reason: .ttl))
        )
    }

    @Test("A phase survives its wire state")
    func wire() {
        for phase in Self.phases where !phase.isLive {
            let state = phase.state(of: "me", sinceMilliseconds: 5)
            #expect(AccountPhase(state, isGuest: true) == phase)
        }
        #expect(AccountPhase(AccountState(uid: "me", kind: .active), isGuest: false) == .member)
        #expect(Saga.of(.merging) == .merge && Saga.of(.deleting) == .deletion && Saga.of(.active) == nil)
        // Every saga ends with identity's finish, alone, after the steps that need the account.
        for saga in [Saga.merge, .deletion] {
            #expect(saga.rounds.last == [.finish])
            #expect(saga.rounds.dropLast().joined().contains(.recordDeletion))
        }
    }

    private static func operation(of event: LifecycleEvent) -> String {
        switch event {
        case .beginMerge(_, let operation, _), .beginDelete(let operation, _, _), .finish(let operation): operation
        }
    }
}
