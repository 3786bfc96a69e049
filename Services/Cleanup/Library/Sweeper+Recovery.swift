import Foundation
import FoyerAPI
import FoyerAccountOps
import FoyerRPC
import FoyerWire

extension Sweeper {
    /// Finishes accounts left in `merging` or `deleting` for longer than the grace, the longest-stuck first.
    ///
    /// identity's list has no cursor: accounts that fail stay at its head. So each page asks for `batchSize` more
    /// than this sweep has already tried and works on the ones not tried yet.
    func recoverStuckAccounts(_ tally: inout SweepTally) async {
        var tried: Set<String> = []
        for _ in 0..<configuration.pagesPerSweep {
            guard !shouldStop else { return }
            let limit = min(IdentityLimits.listCountMax, tried.count + configuration.batchSize)
            let page: StuckAccounts
            do {
                page = try await identity.call(
                    IdentityMethods.listStuckAccounts,
                    ListStuckAccountsRequest(olderThanSeconds: graceSeconds, limit: UInt32(limit))
                )
            } catch {
                logger.error("listing stuck accounts failed", metadata: ["error": "\(error)"])
                tally.fail("listing stuck accounts", error)
                return
            }
            if tried.isEmpty {
                // identity lists the longest-stuck first.
                let since = page.accounts.first?.sinceMilliseconds.map {
                    Date(timeIntervalSince1970: Double($0) / 1000)
                }
                CleanupMetrics.oldestStuckAccount(seconds: since.map { now.timeIntervalSince($0) } ?? 0)
            }
            let fresh = page.accounts.filter { !tried.contains($0.uid) }.prefix(configuration.batchSize)
            for account in fresh {
                guard !shouldStop else { return }
                tried.insert(account.uid)
                let outcome = await whileClaimed(account.uid) { await finish(account) }
                tally.add(outcome, finished: \.stuckFinished)
                if outcome.upstreamUnreachable { return }
            }
            if fresh.isEmpty || page.accounts.count < limit || limit == IdentityLimits.listCountMax { return }
        }
    }

    private func finish(_ account: AccountState) async -> AccountOutcome {
        guard let operationID = account.operationID else {
            return .failed("an account \(account.kind) without an operation id", RecoveryError.incompleteState)
        }
        do {
            switch account.kind {
            case .deleting:
                let reason = Self.deletionReason(operationID: operationID)
                _ = try await operations.finishDeletion(uid: account.uid, operationID: operationID, reason: reason)
                logger.info(
                    "interrupted deletion finished",
                    metadata: [
                        "user.uid": "\(account.uid)", "operation.id": "\(operationID)", "deletion.reason": "\(reason)",
                    ]
                )
            case .merging:
                guard let target = account.mergeInto else {
                    return .failed("a merge without a target (operation \(operationID))", RecoveryError.incompleteState)
                }
                if let report = try await finishMerge(guest: account.uid, into: target, operationID: operationID) {
                    logger.info(
                        "interrupted merge finished",
                        metadata: [
                            "user.uid": "\(account.uid)", "operation.id": "\(operationID)",
                            "merge.moved": "\(report.moved)",
                        ]
                    )
                } else {
                    // The account is gone, so the merge can never finish: the guest is deleted instead, under the
                    // merge's operation and reason (what it lost was to go into an account that no longer exists).
                    let documents = try await operations.deleteEverything(
                        uid: account.uid,
                        operationID: operationID,
                        reason: .merge
                    )
                    logger.info(
                        "guest of a merge into a deleted account deleted",
                        metadata: [
                            "user.uid": "\(account.uid)", "operation.id": "\(operationID)", "documents": "\(documents)",
                        ]
                    )
                }
            case .active:
                return .skipped
            }
            return .finished
        } catch let error as RPCError
            where error.status == IdentityStatus.userNotFound || error.status == IdentityStatus.operationConflict
        {
            // Finished or changed by someone else since it was listed.
            logger.debug(
                "stuck account changed meanwhile",
                metadata: ["user.uid": "\(account.uid)", "error": "\(error)"]
            )
            return .skipped
        } catch {
            logger.warning(
                "finishing an interrupted \(account.kind == .merging ? "merge" : "deletion") failed; the next sweep goes on",
                metadata: ["user.uid": "\(account.uid)", "operation.id": "\(operationID)", "error": "\(error)"]
            )
            return .failed(
                "finishing an interrupted \(account.kind == .merging ? "merge" : "deletion") (operation \(operationID))",
                error
            )
        }
    }

    /// Why an interrupted deletion happened, as far as its operation id tells: cleanup's own TTL operations start
    /// with `ttl-`; everything else was started by the gateway for a user (delete-everything, a guest's sign-out, a
    /// failed guest sign-in, a guest discarded for an account). The reason matters only if the interruption came
    /// before the deletion was first recorded: a record made by the first run keeps its reason.
    static func deletionReason(operationID: String) -> DeletionReason {
        operationID.hasPrefix(Pseudonymizer.ttlPrefix) ? .ttl : .userRequest
    }

    /// Finishes a merge with `keepBoth` (nothing is lost), unless user-data already started this merge under
    /// another policy: user-data refuses a different policy for a known operation (`op-conflict`) rather than
    /// switching, so the merge is finished under the policy the user chose, found by trying the others in turn
    /// (user-data answers the one it recorded and refuses the rest, so nothing is merged twice).
    ///
    /// The target must still be an active account: documents merged into a uid that is gone or being deleted
    /// would be orphaned. Answers nil, merging nothing, when the target no longer exists; a target being deleted
    /// (or merged) is reported and waited for.
    private func finishMerge(guest: String, into target: String, operationID: String) async throws -> MergeReport? {
        let targetState: AccountState
        do {
            targetState = try await identity.call(IdentityMethods.getUser, IdentityUserRequest(uid: target)).state
        } catch let error as RPCError where error.status == IdentityStatus.userNotFound {
            return nil
        }
        guard targetState.kind == .active else { throw RecoveryError.mergeTargetNotActive(targetState.kind) }
        let policies = [MergePolicy.keepBoth] + MergePolicy.allCases.filter { $0 != .keepBoth }
        for (index, policy) in policies.enumerated() {
            do {
                return try await operations.finishMerge(
                    guest: guest,
                    into: target,
                    operationID: operationID,
                    policy: policy
                )
            } catch let error as RPCError where error.status == UserDataStatus.opConflict && index < policies.count - 1
            {
                continue
            }
        }
        preconditionFailure("the last policy's failure is thrown above")
    }
}

/// Why the recovery could not finish an account (reported in the sweep's `lastError`).
enum RecoveryError: Error, CustomStringConvertible {
    case incompleteState
    case mergeTargetNotActive(AccountStateKind)

    var description: String {
        switch self {
        case .incompleteState: "identity answered a merging or deleting account without its operation"
        case .mergeTargetNotActive(let kind):
            "the account the guest is being merged into is \(kind); the merge waits until it is active again"
        }
    }
}
