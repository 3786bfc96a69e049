import Foundation
import FoyerCrypto
import FoyerWire
import NIOCore
import Synchronization

/// Answers of finished multi-service operations by operation id, kept for a while so that a client retrying
/// after a lost answer gets the first answer instead of an error from a step that can no longer run (a merged
/// guest's token no longer verifies, a conflict ticket is spent).
///
/// Per replica and in memory: a retry that reaches another replica re-runs the (idempotent) steps instead.
///
/// A replica signing guests out remembers one answer per sign-out for the whole lifetime, so entries are kept
/// small: the operation id and the request as 128-bit digests held inline, the answer as one byte array.
final class OperationResults: Sendable {
    /// The first 128 bits of a SHA-256 digest.
    private struct Digest: Hashable {
        let high: UInt64
        let low: UInt64

        init(of bytes: some Collection<UInt8>) {
            let digest = SHA256.hash(bytes)
            high = digest[0..<8].reduce(0) { $0 << 8 | UInt64($1) }
            low = digest[8..<16].reduce(0) { $0 << 8 | UInt64($1) }
        }
    }

    private struct Entry {
        let request: Digest
        let answer: [UInt8]
    }

    private let table: Mutex<ExpiringTable<Digest, Entry>>

    init(capacity: Int, lifetime: Duration) {
        table = Mutex(ExpiringTable(lifetime: lifetime, capacity: capacity))
    }

    enum Lookup {
        case none
        case answer(ByteBuffer)
        /// The id was used for a different request.
        case conflict
    }

    /// The remembered answer of `operationID` if `request` (the request without its access token) matches.
    func lookup(_ operationID: String, request: ByteBuffer, now: Date) -> Lookup {
        let key = Digest(of: operationID.utf8)
        let request = Digest(of: request.readableBytesView)
        return table.withLock { table in
            guard let entry = table.value(key, now: now) else { return .none }
            return entry.request == request ? .answer(ByteBuffer(bytes: entry.answer)) : .conflict
        }
    }

    func remember(_ operationID: String, request: ByteBuffer, answer: ByteBuffer, now: Date) {
        let entry = Entry(request: Digest(of: request.readableBytesView), answer: Array(answer.readableBytesView))
        let key = Digest(of: operationID.utf8)
        table.withLock { $0.store(entry, for: key, storedAt: now, now: now) }
    }

    /// Answers held, expired ones not yet dropped included (for tests).
    var count: Int { table.withLock { $0.count } }
}

/// Remembers when each user's activity was last reported, so identity hears of it at most once per interval.
final class ActivityThrottle: Sendable {
    private let lastReported: Mutex<ExpiringTable<String, Void>>

    init(interval: Duration, capacity: Int = 100_000) {
        lastReported = Mutex(ExpiringTable(lifetime: interval, capacity: capacity))
    }

    /// Whether `uid`'s activity should be reported now (and, if so, notes that it is).
    func shouldReport(_ uid: String, now: Date) -> Bool {
        lastReported.withLock { table in
            if table.value(uid, now: now) != nil { return false }
            table.store((), for: uid, storedAt: now, now: now)
            return true
        }
    }

    /// Users held, expired ones not yet dropped included (for tests).
    var count: Int { lastReported.withLock { $0.count } }
}
