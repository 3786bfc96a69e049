import Foundation
import FoyerAPI
import FoyerRPC
import FoyerStorage
import FoyerWire
import Logging
import NIOCore
import SQLKit

/// Load drivers for `make bench`: run against a guest-quota server listening on `host:port`.
enum GuestQuotaLoad {
    typealias Result = LoadRunResult

    /// Opens `concurrency` fresh accounts on `plan`, then times `operations` consumes of 1 on `counter` spread
    /// over them, `concurrency` in flight at once (each account's consumes run one after the other, each with its
    /// own idempotency key). Keep `operations / concurrency` under the plan's limit to measure only allowed ones.
    static func consumes(
        host: String = "127.0.0.1",
        port: Int,
        clusterSecret: ClusterSecret?,
        operations: Int,
        concurrency: Int,
        plan: String = "member",
        counter: String = "documents",
        logger: Logger
    ) async throws -> Result {
        precondition(operations >= 0 && concurrency >= 1, "operations >= 0 and concurrency >= 1")
        let client = RPCClient(
            configuration: RPCClientConfiguration(
                host: host,
                port: port,
                serviceName: "guest-quota",
                peerName: "guest-quota-load",
                clusterSecret: clusterSecret
            ),
            logger: logger
        )
        do {
            let run = String(UInt64.random(in: 0...UInt64.max), radix: 36)
            let uids = (0..<concurrency).map { "load-\(run)-\($0)" }
            for uid in uids {
                _ = try await client.call(GuestQuotaMethods.openAccount, OpenQuotaAccountRequest(uid: uid, plan: plan))
            }
            let clock = ContinuousClock()
            let start = clock.now
            let (succeeded, failed) = await withTaskGroup(of: (Int, Int).self) { group in
                for (worker, uid) in uids.enumerated() {
                    let share = operations / concurrency + (worker < operations % concurrency ? 1 : 0)
                    group.addTask {
                        var ok = 0
                        for index in 0..<share {
                            let charge = QuotaCharge(counter: counter, amount: 1, idempotencyKey: "k\(index)")
                            let request = ConsumeRequest(uid: uid, charges: [charge])
                            if (try? await client.call(GuestQuotaMethods.consume, request)) != nil { ok += 1 }
                        }
                        return (ok, share - ok)
                    }
                }
                return await group.reduce(into: (0, 0)) { $0 = ($0.0 + $1.0, $0.1 + $1.1) }
            }
            let elapsed = clock.now - start
            await client.shutdown()
            return Result(succeeded: succeeded, failed: failed, elapsed: elapsed)
        } catch {
            await client.shutdown()
            throw error
        }
    }
}

extension GuestQuotaLoad {
    /// Opens a quota account on the guest plan for each of `uids`, straight in guest-quota's database and
    /// `perTransaction` to a commit, as the gateway's guest sign-in leaves them (the live-guest count included).
    /// For the set-up of `make bench`'s clean-up rows, beside `IdentityBenchmark.seedGuests`.
    static func seedGuestAccounts(
        into database: FoyerDatabase,
        uids: [String],
        plan: String = "guest",
        perTransaction: Int = 5000
    ) async throws {
        let now = Date()
        for start in stride(from: 0, to: uids.count, by: perTransaction) {
            let batch = uids[start..<min(start + perTransaction, uids.count)]
            try await database.transaction { sql in
                for uid in batch {
                    try await sql.raw(
                        """
                        INSERT INTO gq_accounts (uid, plan, created_at, updated_at)
                        VALUES (\(bind: uid), \(bind: plan), \(SQLTimestamp(now)), \(SQLTimestamp(now)))
                        """
                    ).run()
                }
                try await sql.raw(
                    "UPDATE gq_guest_census SET live_guests = live_guests + \(bind: Int64(batch.count)) WHERE id = 1"
                ).run()
            }
        }
    }
}
