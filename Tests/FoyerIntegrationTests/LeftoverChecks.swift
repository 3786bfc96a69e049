import Foundation
import Testing

/// How far ``RunningStack/passRetentions()`` moves the clock: past every record the stack keeps for a while of a
/// user that is gone, with the retentions the test stacks run with (RunningStack.swift): user-data's tombstones
/// (1 hour) and put records (24 hours), merge records in user-data and guest-quota (1 day), guest-quota's consume
/// keys (24 hours).
let retentionHorizonSeconds: TimeInterval = 86_400 + 60

extension RunningStack {
    /// Moves every clock past ``retentionHorizonSeconds`` and has cleanup sweep: the sweep finishes what is stuck
    /// (grace 0) and makes user-data and guest-quota prune what is past its retention.
    func passRetentions(sourceLocation: SourceLocation = #_sourceLocation) async throws {
        try setClockOffset(seconds: RunningStack.offset(clockFile) + retentionHorizonSeconds)
        let report = try await sweep()
        #expect(report.errors == 0, "\(report)", sourceLocation: sourceLocation)
    }
}

/// Nothing of the user is left in any table of any service once the retentions have passed: not its uid, its
/// `emails`, its provider `subjects`, nor the digests the services keep of them; and no refresh token lost its
/// session.
func expectGone(
    _ uid: String,
    emails: [String] = [],
    subjects: [String] = [],
    _ stack: RunningStack,
    sourceLocation: SourceLocation = #_sourceLocation
) async throws {
    try await stack.passRetentions(sourceLocation: sourceLocation)
    let traces = try await stack.databases.traces(of: uid, emails: emails, subjects: subjects)
    #expect(traces.isEmpty, "rows left of \(uid): \(traces)", sourceLocation: sourceLocation)
    #expect(try await stack.databases.orphanedRefreshTokens() == 0, sourceLocation: sourceLocation)
}
