#if DEBUG
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
#endif

/// Test-only crash points between the steps of delete-everything and merge, for the integration tests that check
/// a crash at every step leaves nothing behind (docs/DECISIONS.md, "Fault points").
///
/// In debug builds, `FOYER_FAULT_KILL_AT=<point>` makes the process that reaches that point kill itself with
/// SIGKILL, exactly as a crash there would: the process that runs the steps (the gateway, or cleanup) at the
/// `delete.*` and `merge.*` points, identity at the `identity.*` points (right after the transaction of a step
/// commits, before its answer is sent). Release builds compile the check out: the variable does nothing.
public enum FaultPoint: String, Sendable {
    case deleteAfterBeginDelete = "delete.afterBeginDelete"
    case deleteAfterRecord = "delete.afterRecord"
    case deleteAfterUserData = "delete.afterUserData"
    case deleteAfterGuestQuota = "delete.afterGuestQuota"
    case deleteAfterFinishDelete = "delete.afterFinishDelete"
    case mergeAfterBeginMerge = "merge.afterBeginMerge"
    case mergeAfterUserData = "merge.afterUserData"
    case mergeAfterGuestQuota = "merge.afterGuestQuota"
    case mergeAfterRecord = "merge.afterRecord"
    case mergeAfterFinishMerge = "merge.afterFinishMerge"
    case identityAfterBeginMerge = "identity.afterBeginMerge"
    case identityAfterFinishMerge = "identity.afterFinishMerge"
    case identityAfterBeginDelete = "identity.afterBeginDelete"
    case identityAfterFinishDelete = "identity.afterFinishDelete"

    /// Kills the process if this point is the armed one (debug builds only).
    public func reached() {
        #if DEBUG
        if Self.armed == rawValue { kill(getpid(), SIGKILL) }
        #endif
    }

    #if DEBUG
    private static let armed: String? = getenv("FOYER_FAULT_KILL_AT").map { String(cString: $0) }
    #endif
}
