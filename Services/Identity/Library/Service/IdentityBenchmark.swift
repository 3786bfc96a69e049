public import Foundation
import FoyerAPI
import FoyerCrypto
public import FoyerRPC
public import FoyerStorage
import NIOCore

/// Guest sign-ins straight against an identity server, for `make bench`.
public enum IdentityBenchmark {
    public struct Result: Sendable {
        /// Sign-ins that succeeded, and those that failed (by status name).
        public var signIns: Int
        public var failures: [String: Int]
        public var seconds: Double
        /// Latencies of the successful calls, in microseconds, unsorted.
        public var latenciesMicroseconds: [Int64]

        public var signInsPerSecond: Double { seconds > 0 ? Double(signIns) / seconds : 0 }
    }

    /// Runs `count` `createGuest` calls (each with a fresh idempotency key) through `client`, `concurrency` at a
    /// time, and measures the wall time. The client must reach an identity server (service name "identity").
    public static func guestSignIns(client: RPCClient, count: Int, concurrency: Int) async throws -> Result {
        let workers = max(1, min(concurrency, count))
        let started = NIODeadline.now()
        let results = try await withThrowingTaskGroup(of: Result.self) { group in
            for worker in 0..<workers {
                let share = count / workers + (worker < count % workers ? 1 : 0)
                group.addTask {
                    var result = Result(signIns: 0, failures: [:], seconds: 0, latenciesMicroseconds: [])
                    result.latenciesMicroseconds.reserveCapacity(share)
                    for _ in 0..<share {
                        let key = Base64URL.encode(SecureRandom.bytes(count: 16))
                        let start = NIODeadline.now()
                        do {
                            _ = try await client.call(
                                IdentityMethods.createGuest,
                                CreateGuestRequest(idempotencyKey: key)
                            )
                            result.signIns += 1
                            result.latenciesMicroseconds.append((NIODeadline.now() - start).nanoseconds / 1000)
                        } catch let error as RPCError {
                            result.failures[IdentityStatus.name(of: error.status), default: 0] += 1
                        }
                    }
                    return result
                }
            }
            var total = Result(signIns: 0, failures: [:], seconds: 0, latenciesMicroseconds: [])
            for try await partial in group {
                total.signIns += partial.signIns
                total.failures.merge(partial.failures, uniquingKeysWith: +)
                total.latenciesMicroseconds += partial.latenciesMicroseconds
            }
            return total
        }
        var total = results
        total.seconds = Double((NIODeadline.now() - started).nanoseconds) / 1e9
        return total
    }
}

extension IdentityBenchmark {
    /// Writes `count` guests straight into an identity database, as `createGuest` leaves them (the user, and a
    /// session with its refresh token) but last active at `lastActivity`, `perTransaction` to a commit. Returns
    /// their uids.
    ///
    /// For the set-up of `make bench`'s clean-up rows: what those rows measure is the deletion, and signing
    /// 100,000 guests in through the gateway (one commit per sign-in and service) would take longer than the
    /// whole report may. The service may be running: SQLite's WAL lets this process write beside it.
    public static func seedGuests(
        into database: FoyerDatabase,
        count: Int,
        lastActivity: Date,
        perTransaction: Int = 5000
    ) async throws -> [String] {
        var uids: [String] = []
        uids.reserveCapacity(count)
        while uids.count < count {
            let size = min(perTransaction, count - uids.count)
            let batch = (0..<size).map { _ in Identifiers.newUID() }
            try await database.transaction { sql in
                for uid in batch {
                    let sessionID = Identifiers.newSessionID()
                    try await UserRecords.insert(sql, uid: uid, isAnonymous: true, now: lastActivity)
                    try await SessionRecords.insertSession(
                        sql,
                        id: sessionID,
                        uid: uid,
                        now: lastActivity,
                        absoluteExpiry: lastActivity.addingTimeInterval(90 * 86_400)
                    )
                    try await SessionRecords.insertRefreshToken(
                        sql,
                        hash: SecretToken.generate().hash,
                        sessionID: sessionID,
                        generation: 0,
                        now: lastActivity
                    )
                }
            }
            uids += batch
        }
        return uids
    }
}
