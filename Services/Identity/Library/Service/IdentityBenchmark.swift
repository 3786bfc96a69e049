public import Foundation
import FoyerAPI
import FoyerCrypto
public import FoyerStorage

/// What `make bench` needs of identity's internals: guests written straight into its database, so the clean-up
/// rows can measure deletions of many idle guests without signing each in first.
public enum IdentityBenchmark {
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
