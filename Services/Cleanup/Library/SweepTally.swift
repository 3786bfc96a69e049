import FoyerAPI
import FoyerRPC
import FoyerWire

/// The counts of one sweep as it goes, turned into a `SweepReport` at the end.
struct SweepTally: Sendable {
    var expiredGuests: UInt64 = 0
    var stuckFinished: UInt64 = 0
    var skipped: UInt64 = 0
    var errors: UInt64 = 0
    var recordsPurged: UInt64 = 0
    var lastError = ""

    /// Counts a failure and keeps its description (the last one wins). `what` must not hold a uid: the report is
    /// answered to any caller of `status`.
    mutating func fail(_ what: String, _ error: any Error) {
        errors += 1
        lastError = "\(what): \(Self.describe(error))"
    }

    /// `unavailable: could not connect ...`, `operation-conflict: ...`: the status by name, then the message.
    static func describe(_ error: any Error) -> String {
        guard let error = error as? RPCError else { return "\(error)" }
        let name =
            IdentityStatus.names[error.status] ?? UserDataStatus.name(of: error.status)
            ?? GuestQuotaStatus.name(of: error.status) ?? error.status.description
        return "\(name): \(error.message)"
    }

    /// Counts what happened to one account; `finished` names the counter of accounts done.
    mutating func add(_ outcome: AccountOutcome, finished: WritableKeyPath<SweepTally, UInt64>) {
        switch outcome {
        case .finished: self[keyPath: finished] += 1
        case .skipped: skipped += 1
        case .failed(let what, let error): fail(what, error)
        }
    }

    func report(dryRun: Bool, startedAtMilliseconds: UInt64, finishedAtMilliseconds: UInt64) -> SweepReport {
        SweepReport(
            dryRun: dryRun,
            startedAtMilliseconds: startedAtMilliseconds,
            finishedAtMilliseconds: max(startedAtMilliseconds, finishedAtMilliseconds),
            expiredGuests: expiredGuests,
            stuckFinished: stuckFinished,
            errors: errors,
            lastError: lastError,
            skipped: skipped,
            recordsPurged: recordsPurged
        )
    }
}

/// What a sweep did with one account.
enum AccountOutcome: Sendable {
    /// Deleted, or its merge or deletion finished.
    case finished
    /// Left alone: another replica works on it, it became active, it is already gone.
    case skipped
    /// Failed; it stays for the next sweep. `what` says what was being done (never with a uid).
    case failed(_ what: String, _ error: any Error)

    /// Whether the failure says an upstream cannot be reached (`unavailable`, after the client's retries): every
    /// further account would fail the same way, so the sweep stops that part and the next sweep goes on.
    var upstreamUnreachable: Bool {
        guard case .failed(_, let error) = self, let error = error as? RPCError else { return false }
        return error.status == .unavailable
    }
}
