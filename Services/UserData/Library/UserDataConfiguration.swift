public import Foundation
import FoyerAPI
public import FoyerStorage
import Synchronization

/// Everything user-data can be told, with the defaults a deployment gets unless it says otherwise. Plain data:
/// the executable maps flags and environment onto it; tests build it directly.
public struct UserDataConfiguration: Sendable {
    /// Where the documents live (SQLite by default, PostgreSQL by URL).
    public var database: DatabaseConfiguration
    /// Largest value of a document, in bytes. Default 256 KiB; at most `UserDataLimits.valueByteCountLimit`
    /// (1,000,000) so that any document fits one frame.
    public var valueByteCountMax: Int = 256 * 1024
    /// Documents in a page when the request asks for 0. Default 100.
    public var pageSizeDefault: Int = 100
    /// Most documents a page may be asked for; more is `page-size-too-large`. Default 1000 (the contract's cap).
    public var pageSizeMax: Int = 1000
    /// A page stops early, after at least one document, when the next would take its body over this many bytes.
    /// Default 768 KiB; between 64 KiB and 1,000,000, so that a page always fits a 1 MiB frame.
    public var pageByteCountMax: Int = 768 * 1024
    /// Guest documents moved per merge transaction. Default 200.
    public var mergeBatchSize: Int = 200
    /// Most documents deleted per `deleteAll` transaction. Default 10,000.
    public var deleteBatchSize: Int = 10_000
    /// Most value bytes deleted per `deleteAll` transaction, so that a transaction's work stays bounded when the
    /// documents are large (10,000 documents of 256 KiB would be 2.5 GiB in one transaction). Default 16 MiB; at
    /// least `valueByteCountMax`, so that every transaction deletes at least one document.
    public var deleteBatchByteCount: Int = 16 * 1024 * 1024
    /// How long a deleted uid keeps refusing writes (`uid-deleted`) after its latest `deleteAll`, before `prune`
    /// removes its tombstone. It must outlast every write that can still be on its way when a deletion starts: an
    /// access token of the user stays valid for identity's `accessTokenLifetime` (15 minutes by default), plus the
    /// clock skew and a call's deadline. Default 24 hours; at least one minute.
    public var deletionTombstoneLifetime: Duration = .seconds(24 * 3600)
    /// How long a merge's records (its op row, which names both uids, and its conflict list) are kept after the
    /// merge finished (or, if it never did, started), before `prune` removes them. Longer than any retry or
    /// recovery of the merge can come (cleanup finishes interrupted merges within its recovery grace, 15 minutes
    /// by default; a retry of a finished merge needs the guest's access token, which expires in 15 minutes). Keep
    /// it equal to guest-quota's. Default 7 days; at least one minute.
    public var mergeRecordRetention: Duration = .seconds(7 * 86_400)
    /// How long a `putOnce` op is remembered for its retries. Default 24 hours (as guest-quota's consume keys);
    /// at least one minute.
    public var putRecordRetention: Duration = .seconds(24 * 3600)
    /// The clock (update times). Tests inject a manual one.
    public var now: @Sendable () -> Date = { Date() }
    /// Test only: interrupts a merge or a deleteAll once after a number of committed batches, as a crash would.
    /// `nil` (default) in production.
    public var failureInjection: FailureInjection?

    public init(database: DatabaseConfiguration) {
        self.database = database
    }

    /// Checks the settings; `UserDataService.make` calls it before opening anything.
    public func validate() throws {
        func check(_ condition: Bool, _ message: String) throws {
            guard condition else { throw UserDataConfigurationError(message: message) }
        }
        try check(
            (1...UserDataLimits.valueByteCountLimit).contains(valueByteCountMax),
            "valueByteCountMax must be between 1 and \(UserDataLimits.valueByteCountLimit)"
        )
        try check(
            (1...UserDataLimits.pageSizeLimit).contains(pageSizeMax),
            "pageSizeMax must be between 1 and \(UserDataLimits.pageSizeLimit)"
        )
        try check((1...pageSizeMax).contains(pageSizeDefault), "pageSizeDefault must be between 1 and pageSizeMax")
        try check(
            (64 * 1024...1_000_000).contains(pageByteCountMax),
            "pageByteCountMax must be between 65536 and 1000000"
        )
        try check((1...10_000).contains(mergeBatchSize), "mergeBatchSize must be between 1 and 10000")
        try check((1...10_000).contains(deleteBatchSize), "deleteBatchSize must be between 1 and 10000")
        try check(
            deleteBatchByteCount >= valueByteCountMax,
            "deleteBatchByteCount must be at least valueByteCountMax (\(valueByteCountMax))"
        )
        for (name, retention) in [
            ("deletionTombstoneLifetime", deletionTombstoneLifetime), ("mergeRecordRetention", mergeRecordRetention),
            ("putRecordRetention", putRecordRetention),
        ] {
            try check(retention >= .seconds(60), "\(name) must be at least a minute")
        }
    }
}

/// A configuration user-data cannot use.
public struct UserDataConfigurationError: Error, Hashable, Sendable, CustomStringConvertible {
    public let message: String
    public var description: String { message }
}

extension UserDataConfiguration {
    /// Test only: makes a merge or a deleteAll fail once, right after a given number of its batches committed,
    /// as if the process had died there. The call is answered `internal` (outcome unknown); a retry finishes.
    public final class FailureInjection: Sendable {
        public enum Operation: Sendable, Hashable {
            case merge, deleteAll
        }

        private struct State {
            var remaining: [Operation: Int]
            var fired: Set<Operation> = []
        }

        private let state: Mutex<State>

        /// Fails each operation once, after the given number of committed batches (counted across calls).
        public init(afterBatches: [Operation: Int]) {
            self.state = Mutex(State(remaining: afterBatches))
        }

        /// The operations that have failed so far.
        public var fired: Set<Operation> { state.withLock { $0.fired } }

        /// Called after each committed batch.
        func batchCommitted(_ operation: Operation) throws {
            let fire = state.withLock { state -> Bool in
                guard let left = state.remaining[operation] else { return false }
                if left <= 1 {
                    state.remaining[operation] = nil
                    state.fired.insert(operation)
                    return true
                }
                state.remaining[operation] = left - 1
                return false
            }
            if fire { throw InjectedFailure(operation: operation) }
        }
    }

    struct InjectedFailure: Error, CustomStringConvertible {
        let operation: FailureInjection.Operation
        var description: String { "injected failure in \(operation)" }
    }
}
