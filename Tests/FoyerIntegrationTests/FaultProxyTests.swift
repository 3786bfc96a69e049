import Foundation
import FoyerAPI
import FoyerClient
import FoyerStackProcesses
import FoyerTestSupport
import Testing

/// A ``FaultProxy`` between the gateway and each service it calls, delaying, duplicating and reordering requests
/// and dropping answers, while clients merge guests into accounts and delete accounts, each retrying its operation
/// under the same operation id until it succeeds. Then the proxies relay cleanly, cleanup sweeps (grace 0), and
/// every saga must have ended exactly once. The seed is printed; `FOYER_FAULT_PROXY_SEED` repeats its choices.
@Suite("Faults between the gateway and the services: every saga ends once", .serialized)
struct FaultProxyTests {
    @Test("Merges and deletions through faulty links end exactly once (SQLite)")
    func sqlite() async throws {
        try await FaultProxyRun.run(engine: .sqlite)
    }

    @Test(
        "Merges and deletions through faulty links end exactly once (PostgreSQL)",
        .enabled(
            if: postgresConfigured,
            "FOYER_TEST_POSTGRES_URL is not set; start one with scripts/throwaway-postgres.sh"
        )
    )
    func postgres() async throws {
        try await FaultProxyRun.run(engine: .postgres)
    }
}

/// One run: proxies, a stack whose gateway calls through them, the operations, the checks.
private enum FaultProxyRun {
    static let merges = 6
    static let deletions = 6
    /// Attempts per operation: an attempt fails when a dropped answer leaves a call to its deadline.
    static let attemptsMax = 12
    /// The services the gateway calls, each behind a proxy.
    static let upstreams: [StackService] = [.identity, .guestQuota, .userData, .cleanup]

    static func run(engine: TestEngine) async throws {
        let seed = FaultProxyConfiguration.seedFromEnvironment()
        print("FaultProxyTests (\(engine)): seed \(seed); \(FaultProxyConfiguration.seedVariable)=\(seed) repeats it")
        var proxies: [StackService: FaultProxy] = [:]
        for (index, service) in upstreams.enumerated() {
            var configuration = FaultProxyConfiguration(seed: seed &+ UInt64(index))
            configuration.delayRate = 0.25
            configuration.duplicateRate = 0.2
            configuration.reorderRate = 0.2
            configuration.dropAnswerRate = 0.1
            let proxy = try await FaultProxy.start(configuration: configuration)
            proxy.setFaultsEnabled(false)
            proxies[service] = proxy
        }
        var options = RunningStackOptions(engine: engine)
        options.environment[.gateway] = Dictionary(
            uniqueKeysWithValues: upstreams.compactMap { service in
                service.addressVariable.map { ($0, "127.0.0.1:\(proxies[service]?.port ?? 0)") }
            }
        )
        do {
            try await withRunningStack(options) { stack in
                for service in upstreams { proxies[service]?.setUpstream(port: stack.processes.port(of: service)) }
                try await operateAndCheck(stack, proxies: Array(proxies.values), seed: seed)
            }
        } catch {
            for proxy in proxies.values { try? await proxy.shutdown() }
            throw error
        }
        for proxy in proxies.values { try await proxy.shutdown() }
    }

    static func operateAndCheck(_ stack: RunningStack, proxies: [FaultProxy], seed: UInt64) async throws {
        var merges: [ProxiedMerge] = []
        for _ in 0..<Self.merges { merges.append(try await ProxiedMerge.prepare(stack)) }
        var deletions: [ProxiedDeletion] = []
        for _ in 0..<Self.deletions { deletions.append(try await ProxiedDeletion.prepare(stack)) }
        let recordsBefore = try await stack.databases.deletionRecordCount()

        for proxy in proxies { proxy.setFaultsEnabled(true) }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for merge in merges { group.addTask { try await merge.linkUntilDone() } }
            for deletion in deletions { group.addTask { try await deletion.deleteUntilDone() } }
            try await group.waitForAll()
        }
        for proxy in proxies { proxy.setFaultsEnabled(false) }

        let counts = proxies.map(\.counts).reduce(FaultProxyCounts(), +)
        print("FaultProxyTests: seed \(seed): \(counts)")
        #expect(counts.delayed > 0, "no request was delayed (seed \(seed)): \(counts)")
        #expect(counts.duplicated > 0, "no request was duplicated (seed \(seed)): \(counts)")
        #expect(counts.reordered > 0, "no request was reordered (seed \(seed)): \(counts)")
        #expect(counts.droppedAnswers > 0, "no answer was dropped (seed \(seed)): \(counts)")

        let report = try await stack.sweep()
        #expect(report.errors == 0, "\(report)\n\(stack.logs())")
        #expect(report.stuckFinished == 0, "every operation had succeeded, nothing was left stuck: \(report)")
        #expect(
            try await stack.databases.deletionRecordCount() == recordsBefore + merges.count + deletions.count,
            "one deletion record per merged guest and deleted account (seed \(seed))"
        )
        #expect(try await stack.databases.claimCount() == 0)
        // Each merge's records first: the first `expectGone` moves the clock past their retention.
        for merge in merges { try await merge.checkMerged() }
        for deletion in deletions { try await deletion.checkDeleted() }
        for merge in merges { try await expectGone(merge.guest.uid, stack) }
        for deletion in deletions {
            try await expectGone(deletion.account.uid, emails: [deletion.account.email], stack)
        }
        let gone = merges.map(\.guest.uid) + deletions.map(\.account.uid)
        try await expectInvariants(stack, InvariantScope(deleted: gone, exactCounters: true))
    }

    /// A client of the gateway that tries each call once, with a short deadline: a dropped answer fails the attempt
    /// soon, and the test retries it.
    static func withClient<T: Sendable>(
        _ stack: RunningStack,
        session: SessionTokens,
        _ body: (FoyerClient) async throws -> T
    ) async throws -> T {
        let adjust = { (configuration: inout FoyerClientConfiguration) in
            configuration.peerName = "foyer-fault-proxy-tests"
            configuration.callTimeout = .seconds(2)
        }
        return try await stack.withClient(session: session, adjust: adjust, body)
    }

    /// Runs `attempt` until it succeeds, at most ``attemptsMax`` times, pausing a little longer after each failure.
    static func untilDone<T: Sendable>(_ what: String, _ attempt: () async throws -> T) async throws -> T {
        var failures: [String] = []
        for number in 1...attemptsMax {
            do {
                return try await attempt()
            } catch let error as FoyerError {
                failures.append("\(error)")
                try await Task.sleep(for: .milliseconds(20 * number))
            }
        }
        throw OperationNeverSucceeded(description: "\(what) failed \(attemptsMax) times: \(failures)")
    }

    struct OperationNeverSucceeded: Error, CustomStringConvertible {
        let description: String
    }
}

/// An account with notes a1, a2 and a guest with notes g1, g2, g3 to merge into it under one operation id.
private struct ProxiedMerge: Sendable {
    let stack: RunningStack
    let account: (uid: String, email: String)
    let guest: SessionTokens
    let operationID = OperationID.make()

    static func prepare(_ stack: RunningStack) async throws -> ProxiedMerge {
        let account = try await makeAccount(stack, keys: ["a1", "a2"])
        let guest = try await stack.withClient { client async throws in
            let guest = try await client.signInAsGuest()
            for key in ["g1", "g2", "g3"] { try await client.put("notes", key, "guest \(key)") }
            return guest
        }
        return ProxiedMerge(stack: stack, account: account, guest: guest)
    }

    func linkUntilDone() async throws {
        let result = try await FaultProxyRun.untilDone("merge of \(guest.uid)") {
            try await FaultProxyRun.withClient(stack, session: guest) { client in
                try await client.link(
                    email: account.email,
                    password: password,
                    onConflict: .merge,
                    operationID: operationID
                )
            }
        }
        #expect(result.outcome == .merged)
        #expect(result.session?.uid == account.uid)
    }

    /// The merge happened once: one merge record in each service, the account holds each document once and counts
    /// five, and the guest has no state left.
    func checkMerged() async throws {
        let databases = stack.databases
        #expect(try await databases.state(of: guest.uid) == nil, "the merge of \(guest.uid) did not end")
        let records = try await databases.mergeRecords(from: guest.uid)
        #expect(records.userData == 1 && records.guestQuota == 1, "merged twice? \(records)")
        let keys = try await databases.documentKeys(of: account.uid)
        #expect(keys == ["notes/a1", "notes/a2", "notes/g1", "notes/g2", "notes/g3"])
        #expect(try await databases.counter("documents", of: account.uid) == 5)
        #expect(try await databases.state(of: account.uid) == "active")
    }
}

/// A member with three documents deleting everything under one operation id.
private struct ProxiedDeletion: Sendable {
    let stack: RunningStack
    let account: (uid: String, email: String)
    let session: SessionTokens
    let operationID = OperationID.make()

    static func prepare(_ stack: RunningStack) async throws -> ProxiedDeletion {
        let account = try await makeAccount(stack, keys: ["d1", "d2", "d3"])
        let session = try await stack.withClient { client async throws in
            try await client.signIn(email: account.email, password: password)
        }
        return ProxiedDeletion(stack: stack, account: account, session: session)
    }

    func deleteUntilDone() async throws {
        let deleted = try await FaultProxyRun.untilDone("deletion of \(account.uid)") {
            try await FaultProxyRun.withClient(stack, session: session) { client in
                try await client.deleteAccount(operationID: operationID)
            }
        }
        #expect(deleted <= 3)
    }

    /// The deletion ended.
    func checkDeleted() async throws {
        #expect(try await stack.databases.state(of: account.uid) == nil, "the deletion of \(account.uid) did not end")
    }
}
