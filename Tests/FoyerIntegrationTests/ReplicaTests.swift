import Foundation
import FoyerAPI
import FoyerClient
import FoyerStackProcesses
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Two replicas of every service on one PostgreSQL: stacks A and B, five executables each, B started on A's schemas
/// with A's cluster secret, the same key-encryption key sealing identity's signing keys, and A's clock. Each gateway
/// calls the services of its own stack, so the two share nothing but the database: a token one identity signs,
/// the other's gateway verifies, and an operation one replica began, the other finishes.
///
/// Journeys alternate between the gateways; then every service of A is killed with SIGKILL, one at a time while a
/// journey needs it (the gateway by its fault point in the middle of a merge, debug builds), and what fails on A's
/// path the client sends again to B, with the same operation id or idempotency key, as a client behind a load
/// balancer would; A restarts and both cleanups sweep; deletions through A (one of them left half done by A's
/// gateway, killed again by its fault point) race a TTL sweep by B's cleanup. Then nothing may be lost or done
/// twice: every document kept is stored and counted exactly once, every merged or deleted uid is gone with one
/// deletion record, and every invariant of docs/INVARIANTS.md holds.
///
/// PostgreSQL only: two processes of a service on one SQLite file is not a supported deployment.
@Suite(
    "Two replicas of every service on one PostgreSQL",
    .enabled(if: postgresConfigured, "FOYER_TEST_POSTGRES_URL is not set; start one with scripts/throwaway-postgres.sh")
)
struct ReplicaTests {
    @Test("Journeys through two gateways, one replica of each service killed: nothing is lost or done twice")
    func twoReplicasOfEverything() async throws {
        try await withReplicas { replicas in
            var ledger = ReplicaLedger()
            try await replicas.journeysAcross(&ledger)
            try await replicas.killOneReplicaOfEach(&ledger)
            try await replicas.deletionsRaceSweep(&ledger)
            try await replicas.checkNothingLostOrDoneTwice(ledger)
        }
    }
}

/// How a call fails when a replica on its path is dead: the client tries the other gateway.
private let deadPathStatuses: [FoyerError] = [.unavailable, .connectionLost, .deadlineExceeded]

/// The key-encryption key file both identities read, in A's data directory.
private let keyEncryptionKeyFile = "signing-key-encryption-key"

/// Starts stack A on fresh schemas, then stack B on A's schemas, cluster secret, key-encryption key and clock file;
/// runs `body`; stops B, then A (which drops the schemas).
private func withReplicas<T: Sendable>(_ body: (ReplicaPair) async throws -> T) async throws -> T {
    var first = RunningStackOptions(engine: .postgres)
    first.prepare = { directory in
        let file = directory.appendingPathComponent(keyEncryptionKeyFile)
        let key = (0..<32).map { _ in UInt8.random(in: .min ... .max) }
        try Data((Data(key).base64EncodedString() + "\n").utf8).write(to: file)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: file.path)
        return [.identity: ["FOYER_SIGNING_KEY_ENCRYPTION_KEY_FILE": file.path]]
    }
    return try await withRunningStack(first) { a in
        var second = RunningStackOptions(engine: .postgres)
        second.sharedDatabase = a.processes.configuration.database
        let secret = try Data(contentsOf: a.processes.configuration.clusterSecretFile)
        second.files = ["cluster-secret": Array(secret)]
        for service in StackService.allCases {
            second.environment[service] = ["FOYER_TEST_CLOCK_FILE": a.clockFile.path]
        }
        second.environment[.identity]?["FOYER_SIGNING_KEY_ENCRYPTION_KEY_FILE"] =
            a.directory.appendingPathComponent(keyEncryptionKeyFile).path
        return try await withRunningStack(second) { stack in
            let b = RunningStack(processes: stack.processes, databases: stack.databases, clockFile: a.clockFile)
            return try await body(ReplicaPair(a: a, b: b))
        }
    }
}

/// A member the test made, with the session of its sign-up.
private struct ReplicaMember: Sendable {
    let uid: String
    let email: String
    let session: SessionTokens
}

/// A guest the test made and the documents it wrote ("collection/key").
private struct ReplicaGuest: Sendable {
    let session: SessionTokens
    let documents: Set<String>
    var uid: String { session.uid }
}

/// What the test did, so that the end state can be checked against it.
private struct ReplicaLedger {
    var members: [ReplicaMember] = []
    /// Per uid that must survive, the documents it must hold, each once ("collection/key").
    var documents: [String: Set<String>] = [:]
    var mergedGuests: [String] = []
    /// The account each merged guest went into.
    var mergeTargets: [String: String] = [:]
    /// Accounts deleted through a gateway and guests deleted by a TTL sweep.
    var deletedUIDs: [String] = []
    /// The guest signed in while A's identity was dead, left to go idle.
    var idleGuest: String?

    mutating func add(_ member: ReplicaMember, documents: Set<String>) {
        members.append(member)
        self.documents[member.uid] = documents
    }

    mutating func merged(_ guest: ReplicaGuest, into account: String) {
        mergedGuests.append(guest.uid)
        mergeTargets[guest.uid] = account
        documents[account, default: []].formUnion(guest.documents)
    }

    mutating func deleted(_ uid: String) {
        deletedUIDs.append(uid)
        documents[uid] = nil
    }
}

/// The two stacks, and journeys across them.
private struct ReplicaPair: Sendable {
    let a: RunningStack
    let b: RunningStack

    /// A for even numbers, B for odd ones.
    func stack(_ index: Int) -> RunningStack { index.isMultiple(of: 2) ? a : b }

    // MARK: Both replicas up

    /// Four guests sign in on one gateway, write through the other and sign up on the first; then two guests merge
    /// into the first two accounts, each link begun on one gateway and retried (same operation id) on the other.
    func journeysAcross(_ ledger: inout ReplicaLedger) async throws {
        let made = try await withThrowingTaskGroup(of: (Int, ReplicaMember, Set<String>).self) { group in
            for index in 0..<4 {
                group.addTask {
                    let (member, documents) = try await signUpAcross(stack(index), stack(index + 1), name: "m\(index)")
                    return (index, member, documents)
                }
            }
            var made: [(Int, ReplicaMember, Set<String>)] = []
            for try await one in group { made.append(one) }
            return made.sorted { $0.0 < $1.0 }
        }
        for (_, member, documents) in made { ledger.add(member, documents: documents) }
        try await mergeRetriedAcross(into: ledger.members[0], begin: a, retry: b, name: "ab", &ledger)
        try await mergeRetriedAcross(into: ledger.members[1], begin: b, retry: a, name: "ba", &ledger)
    }

    /// A guest signs in through `first`'s gateway, writes two documents through `second`'s, links an email through
    /// `first`'s and reads its documents through `second`'s.
    func signUpAcross(
        _ first: RunningStack,
        _ second: RunningStack,
        name: String
    ) async throws -> (ReplicaMember, Set<String>) {
        let guest = try await first.withClient { client in try await client.signInAsGuest() }
        let keys = ["\(name)-1", "\(name)-2"]
        try await second.withClient(session: guest) { client in
            for key in keys { try await client.put("notes", key, "\(name) \(key)") }
        }
        let email = uniqueEmail(name)
        let linked = try await first.withClient(session: guest) { client in
            try await client.link(email: email, password: password)
        }
        #expect(linked.outcome == .linked)
        #expect(linked.session?.uid == guest.uid)
        let session = try #require(linked.session)
        let read = try await second.withClient(session: session) { client in
            try await client.listAll("notes").map(\.key)
        }
        #expect(Set(read) == Set(keys), "a member's documents read through the other gateway")
        return (ReplicaMember(uid: guest.uid, email: email, session: session), Set(keys.map { "notes/\($0)" }))
    }

    /// A new guest with two documents, written through `stack`'s gateway.
    func guestWriting(through stack: RunningStack, name: String) async throws -> ReplicaGuest {
        try await stack.withClient { client in
            let session = try await client.signInAsGuest()
            let keys = ["\(name)-1", "\(name)-2"]
            for key in keys { try await client.put("notes", key, "\(name) \(key)") }
            return ReplicaGuest(session: session, documents: Set(keys.map { "notes/\($0)" }))
        }
    }

    /// A guest writes through `retry`'s gateway and links `account`'s email with merge through `begin`'s; then the
    /// client, as if that answer were lost, sends the same link (same operation id) through `retry`'s gateway,
    /// which must answer the same outcome: merged into the same account with the same report.
    func mergeRetriedAcross(
        into account: ReplicaMember,
        begin: RunningStack,
        retry: RunningStack,
        name: String,
        _ ledger: inout ReplicaLedger
    ) async throws {
        let guest = try await guestWriting(through: retry, name: name)
        let operationID = OperationID.make()
        let link: (FoyerClient) async throws -> LinkResult = { client in
            try await client.link(
                email: account.email,
                password: password,
                onConflict: .merge,
                operationID: operationID
            )
        }
        let first = try await begin.withClient(session: guest.session, link)
        #expect(first.outcome == .merged)
        #expect(first.session?.uid == account.uid)
        #expect(first.mergeReport?.moved == UInt64(guest.documents.count))
        ledger.merged(guest, into: account.uid)
        do {
            let again = try await retry.withClient(session: guest.session, link)
            #expect(again.outcome == first.outcome, "the retry through the other gateway answered another outcome")
            #expect(again.session?.uid == first.session?.uid, "the retry through the other gateway")
            #expect(again.mergeReport == first.mergeReport, "the retry through the other gateway")
        } catch {
            Issue.record("the link's retry (same operation id) through the other gateway failed: \(error)")
        }
    }

    // MARK: One replica of each killed

    /// Runs `body` with a client of `first`'s gateway; when it fails as calls fail on a dead replica's path
    /// (unavailable, connection lost, deadline exceeded), runs it again with a client of `second`'s, as a client
    /// behind a load balancer would. `body` must repeat its request exactly (operation id, idempotency key).
    func failingOver<T: Sendable>(
        from first: RunningStack,
        to second: RunningStack,
        session: SessionTokens?,
        _ body: (FoyerClient) async throws -> T
    ) async throws -> (answer: T, failedOver: Bool) {
        do {
            return (try await first.withClient(session: session, body), false)
        } catch let error as FoyerError where deadPathStatuses.contains(error) {
            return (try await second.withClient(session: session, body), true)
        }
    }

    /// Kills A's gateway (by its fault point, after user-data's step of a merge), user-data, guest-quota, cleanup
    /// and identity, each before a call that needs it, and sends what failed to B; drives a journey through B alone;
    /// restarts A's services and lets both cleanups sweep.
    func killOneReplicaOfEach(_ ledger: inout ReplicaLedger) async throws {
        try await gatewayKilledInMerge(&ledger)

        // user-data: A's gateway begins the merge (identity A marks the guest merging), user-data A is gone; B's
        // gateway, given the same operation id, finishes it.
        #expect(await a.processes.kill(.userData) == .signalled(SIGKILL))
        let guest = try await guestWriting(through: b, name: "ud")
        let account = ledger.members[3]
        let mergeID = OperationID.make()
        let (merge, mergeFailedOver) = try await failingOver(from: a, to: b, session: guest.session) { client in
            try await client.link(email: account.email, password: password, onConflict: .merge, operationID: mergeID)
        }
        #expect(mergeFailedOver, "a merge through a gateway whose user-data is dead")
        #expect(merge.outcome == .merged)
        #expect(merge.session?.uid == account.uid)
        #expect(merge.mergeReport?.moved == UInt64(guest.documents.count))
        ledger.merged(guest, into: account.uid)

        // guest-quota: a put through A cannot take quota; through B, with the same idempotency key, it does, once.
        #expect(await a.processes.kill(.guestQuota) == .signalled(SIGKILL))
        let writer = ledger.members[0]
        let putKey = OperationID.make()
        let (_, putFailedOver) = try await failingOver(from: a, to: b, session: writer.session) { client in
            try await client.put("notes", "gq", "written while a guest-quota was dead", idempotencyKey: putKey)
        }
        #expect(putFailedOver, "a put through a gateway whose guest-quota is dead")
        ledger.documents[writer.uid, default: []].insert("notes/gq")

        // cleanup: A's gateway begins the deletion (identity A marks the account deleting), cannot record it; B's
        // gateway, given the same operation id, finishes it.
        #expect(await a.processes.kill(.cleanup) == .signalled(SIGKILL))
        let deleted = ledger.members[1]
        let deletion = OperationID.make()
        let (count, deleteFailedOver) = try await failingOver(from: a, to: b, session: deleted.session) { client in
            try await client.deleteAccount(operationID: deletion)
        }
        #expect(deleteFailedOver, "a deletion through a gateway whose cleanup is dead")
        #expect(count == UInt64(ledger.documents[deleted.uid]?.count ?? 0), "documents deleted")
        ledger.deleted(deleted.uid)

        // identity: a guest's sign-in through A fails; through B, with the same idempotency key, it is one guest.
        #expect(await a.processes.kill(.identity) == .signalled(SIGKILL))
        let signInKey = OperationID.make()
        let (idle, signInFailedOver) = try await failingOver(from: a, to: b, session: nil) { client in
            try await client.signInAsGuest(idempotencyKey: signInKey)
        }
        #expect(signInFailedOver, "a guest's sign-in through a gateway whose identity is dead")
        _ = try await b.withClient(session: idle) { client in try await client.put("notes", "idle", "idle") }
        ledger.idleGuest = idle.uid

        // B alone carries a whole journey.
        let (member, documents) = try await signUpAcross(b, b, name: "m4")
        ledger.add(member, documents: documents)

        for service in [StackService.identity, .guestQuota, .userData, .cleanup] {
            try await a.processes.restart(service)
        }
        for stack in [a, b] {
            let report = try await stack.sweep()
            #expect(report.errors == 0, "\(report)\n\(stack.logs())")
            #expect(report.stuckFinished == 0, "every retry finished its operation: \(report)")
            #expect(report.expiredGuests == 0, "\(report)")
        }
        // Each merge recorded once in user-data and guest-quota (read now: the sweeps prune these records a day on;
        // an account's deletion takes the records of the merges into it).
        for guest in ledger.mergedGuests where ledger.documents[ledger.mergeTargets[guest] ?? ""] != nil {
            let records = try await a.databases.mergeRecords(from: guest)
            #expect(records.userData == 1 && records.guestQuota == 1, "merged twice? \(guest): \(records)")
        }
        // A serves again: B's member reads through it.
        let read = try await a.withClient(session: member.session) { client in
            try await client.listAll("notes").map(\.key)
        }
        #expect(Set(read.map { "notes/\($0)" }) == documents)
    }

    /// A's gateway, armed to kill itself after user-data's step of a merge, dies in the middle of a guest's link;
    /// the client sends the same link (same operation id) to B's gateway, which finishes the merge. A's gateway is
    /// restarted disarmed.
    func gatewayKilledInMerge(_ ledger: inout ReplicaLedger) async throws {
        try await restartGatewayA(armedAt: "merge.afterUserData")
        let guest = try await guestWriting(through: b, name: "gw")
        let account = ledger.members[2]
        let operationID = OperationID.make()
        let (merge, failedOver) = try await failingOver(from: a, to: b, session: guest.session) { client in
            try await client.link(
                email: account.email,
                password: password,
                onConflict: .merge,
                operationID: operationID
            )
        }
        #expect(failedOver, "A's gateway answered a merge it should have died in")
        #expect(await a.processes.waitForExit(of: .gateway) == .signalled(SIGKILL))
        #expect(merge.outcome == .merged)
        #expect(merge.session?.uid == account.uid)
        #expect(merge.mergeReport?.moved == UInt64(guest.documents.count))
        ledger.merged(guest, into: account.uid)
        try await restartGatewayA(armedAt: nil)
    }

    /// Restarts A's gateway with its test settings and, given a fault point, armed to kill itself there.
    func restartGatewayA(armedAt point: String?) async throws {
        var environment = a.processes.configuration.environment[.gateway] ?? [:]
        environment["FOYER_FAULT_KILL_AT"] = point
        try await a.processes.restart(.gateway, environment: environment)
    }

    // MARK: Deletions racing a sweep

    /// Two more guests write, one through each gateway; every clock moves 31 days on (the TTL is 30), so they and
    /// the guest of identity's failover are idle. A member (signed in again: its session expired with the move)
    /// deletes its account through A, whose gateway kills itself right after marking it deleting; then B's cleanup
    /// sweeps while the member's retry (same operation id) and a new guest's deletion go through A: the sweep must
    /// delete exactly the idle guests, and the member's deletion, which its recovery (grace 0) takes up at the
    /// same time as the retry, must finish once.
    func deletionsRaceSweep(_ ledger: inout ReplicaLedger) async throws {
        var idle = try [#require(ledger.idleGuest)]
        for index in 0..<2 { idle.append(try await guestWriting(through: stack(index), name: "idle\(index)").uid) }
        try a.setClockOffset(seconds: RunningStack.offset(a.clockFile) + 31 * 86_400)

        let member = ledger.members[2]
        let session = try await a.withClient { client in
            try await client.signIn(email: member.email, password: password)
        }
        let guest = try await guestWriting(through: b, name: "fresh")
        try await restartGatewayA(armedAt: "delete.afterBeginDelete")
        let deletion = OperationID.make()
        let crashed = await foyerFailure {
            try await a.withClient(session: session) { client in try await client.deleteAccount(operationID: deletion) }
        }
        #expect(crashed == .connectionLost, "A's gateway answered a deletion it should have died in")
        #expect(await a.processes.waitForExit(of: .gateway) == .signalled(SIGKILL))
        #expect(try await a.databases.state(of: member.uid) == "deleting")
        try await restartGatewayA(armedAt: nil)

        async let sweep = b.sweep()
        async let memberDeleted: Result<UInt64, any Error> = {
            do {
                return .success(
                    try await a.withClient(session: session) { client in
                        try await client.deleteAccount(operationID: deletion)
                    }
                )
            } catch {
                return .failure(error)
            }
        }()
        async let guestDeleted = a.withClient(session: guest.session) { client in try await client.deleteAccount() }
        let (report, memberResult, guestCount) = try await (sweep, memberDeleted, guestDeleted)

        #expect(report.expiredGuests == UInt64(idle.count), "\(report)")
        #expect(report.errors == 0, "\(report)\n\(b.logs())")
        // Each attempt answers the documents it deleted itself: the sweep's recovery may have deleted them first.
        #expect(guestCount <= UInt64(guest.documents.count))
        // The retry's gateway reads the member `deleting` under this operation while the recovery may finish that
        // deletion at the same moment: the retry runs only the remaining steps, which succeed either way.
        let count = try memberResult.get()
        #expect(count <= UInt64(ledger.documents[member.uid]?.count ?? 0))
        ledger.deleted(member.uid)
        for uid in idle + [guest.uid] { ledger.deleted(uid) }
    }

    // MARK: The end state

    /// At rest, with every retention passed: each merged or deleted uid is gone with one deletion record; each
    /// surviving account holds exactly its documents, counted once, and signs in through one gateway and reads them
    /// through the other; every invariant holds.
    func checkNothingLostOrDoneTwice(_ ledger: ReplicaLedger) async throws {
        let quiet = try await a.sweep()
        #expect(quiet.errors == 0 && quiet.stuckFinished == 0 && quiet.expiredGuests == 0, "\(quiet)")
        try await a.passRetentions()

        let databases = a.databases

        let gone = ledger.mergedGuests + ledger.deletedUIDs
        for uid in gone {
            #expect(try await databases.state(of: uid) == nil, "\(uid) is still in identity")
        }
        #expect(try await databases.deletionRecordCount() == gone.count, "one deletion record per uid gone")
        #expect(try await databases.claimCount() == 0)
        for (uid, documents) in ledger.documents.sorted(by: { $0.key < $1.key }) {
            #expect(try await databases.documentKeys(of: uid) == documents.sorted(), "\(uid)'s documents")
            #expect(try await databases.counter("documents", of: uid) == documents.count, "\(uid)'s counter")
            #expect(try await databases.state(of: uid) == "active")
        }
        try await expectInvariants(a, InvariantScope(deleted: gone, exactCounters: true))

        let survivors = ledger.members.filter { ledger.documents[$0.uid] != nil }
        #expect(survivors.count == 3)
        for (index, member) in survivors.enumerated() {
            let session = try await stack(index).withClient { client in
                try await client.signIn(email: member.email, password: password)
            }
            #expect(session.uid == member.uid)
            let read = try await stack(index + 1).withClient(session: session) { client in
                try await client.listAll("notes").map(\.key)
            }
            #expect(Set(read.map { "notes/\($0)" }) == ledger.documents[member.uid])
        }
    }
}
