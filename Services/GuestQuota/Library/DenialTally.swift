import Foundation
import FoyerStorage
import Synchronization

/// The denials this process answered and has not yet written to `guest_quota_denials`: a count per minute and
/// kind, in memory. Recording one takes a lock around a dictionary update, never the database; the flush
/// (`GuestQuotaStore.flushDenials`, every `denialFlushInterval` and on graceful shutdown) takes them out and adds
/// them to the table.
///
/// At most ``keysMax`` (minute, kind) pairs are held (only reached while flushes keep failing); a denial that would
/// need another pair is dropped and counted in ``takeDropped()``, for the flush's log line.
final class DenialTally: Sendable {
    /// A minute (its start, microseconds since the Unix epoch) and a kind of denial.
    struct Key: Hashable, Sendable, Comparable {
        let minuteStart: Int64
        let kind: String

        static func < (lhs: Key, rhs: Key) -> Bool {
            (lhs.minuteStart, lhs.kind) < (rhs.minuteStart, rhs.kind)
        }
    }

    /// Most (minute, kind) pairs held between flushes.
    static let keysMax = 10_000
    private static let minuteMicroseconds: Int64 = 60_000_000

    private struct State {
        var counts: [Key: UInt64] = [:]
        var dropped: UInt64 = 0
    }

    private let state = Mutex(State())

    /// The start of the minute holding `date`, in microseconds since the Unix epoch.
    static func minuteStart(of date: Date) -> Int64 {
        let microseconds = date.databaseMicroseconds
        let remainder = microseconds % minuteMicroseconds
        return microseconds - (remainder < 0 ? remainder + minuteMicroseconds : remainder)
    }

    /// Counts one denial of `kind` in the minute of `date`.
    func record(kind: String, at date: Date) {
        add([Key(minuteStart: Self.minuteStart(of: date), kind: kind): 1])
    }

    /// Adds `counts` (a failed flush gives its tallies back this way).
    func add(_ counts: [Key: UInt64]) {
        state.withLock { state in
            for (key, count) in counts {
                if let current = state.counts[key] {
                    state.counts[key] = current &+ count
                } else if state.counts.count < Self.keysMax {
                    state.counts[key] = count
                } else {
                    state.dropped &+= count
                }
            }
        }
    }

    /// Takes every tally out, for a flush.
    func take() -> [Key: UInt64] {
        state.withLock { state in
            defer { state.counts = [:] }
            return state.counts
        }
    }

    /// The held tallies of the minutes starting at or after `minuteStart`, summed per kind.
    func counts(since minuteStart: Int64) -> [String: UInt64] {
        state.withLock { state in
            var sums: [String: UInt64] = [:]
            for (key, count) in state.counts where key.minuteStart >= minuteStart {
                sums[key.kind, default: 0] &+= count
            }
            return sums
        }
    }

    /// How many denials were dropped for want of room since the last call, and resets it.
    func takeDropped() -> UInt64 {
        state.withLock { state in
            defer { state.dropped = 0 }
            return state.dropped
        }
    }
}
