public import FoyerAPI

/// Where an account is in its life: the state machine of every account, as a value.
///
/// ```
///            link (same uid)                beginDelete
///   guest ─────────────────────▶ member ──────────────────▶ deleting(op, reason) ──finish──▶ gone
///     │  beginMerge(into, op)                                     ▲
///     └──────────────────────▶ merging(into, op, policy) ──finish─┴─▶ gone
///                                  │ (only when `into` is gone) beginDelete
///                                  └──────────────────────────────────────────▶ deleting
/// ```
///
/// Identity loads a user's row, asks ``decide(_:facts:)`` what an event does to it, and applies the decision in the
/// same transaction; nothing else moves an account between phases. Every move into `merging` or `deleting` signs
/// the account out everywhere (sessions, tokens, tickets, pending email links): from there it only goes forward, to
/// gone, by the saga that began it (``Saga``) or by cleanup's recovery of it.
public enum AccountPhase: Hashable, Sendable {
    case guest
    case member
    case merging(into: String, operation: String, policy: MergePolicy)
    case deleting(operation: String, reason: DeletionReason)

    /// What an account may do, or have done to it, in each phase.
    public enum Action: Hashable, Sendable, CaseIterable {
        /// Sign in, refresh a session, or present an access token.
        case signIn
        /// Read and write its documents and counters.
        case dataCalls
        /// Link a credential (a guest becomes a member; a member adds one after a recent sign-in).
        case link
        /// Be merged into another account (or discarded for it).
        case merge
        /// Be the account a guest is merged into.
        case beMergeTarget
        /// Begin its deletion.
        case delete
        /// Complete a pending credential change (an email change, a password reset).
        case changeCredential
    }

    /// Whether the account may `action` in this phase. Only a live account does anything; a guest has no
    /// credential to change and is never a merge target, a member is never merged into another.
    public func allows(_ action: Action) -> Bool {
        switch (self, action) {
        case (.merging, _), (.deleting, _): false
        case (.guest, .beMergeTarget), (.guest, .changeCredential): false
        case (.member, .merge): false
        case (.guest, _), (.member, _): true
        }
    }

    /// Whether the account is live (a guest or a member).
    public var isLive: Bool { allows(.signIn) }

    /// The operation of a merge or deletion under way.
    public var operation: String? {
        switch self {
        case .merging(_, let operation, _), .deleting(let operation, _): operation
        case .guest, .member: nil
        }
    }

    /// The phase a user row describes (`AccountState` on the wire, plus whether the user is a guest).
    public init(_ state: AccountState, isGuest: Bool) {
        switch state.kind {
        case .active: self = isGuest ? .guest : .member
        case .merging:
            self = .merging(
                into: state.mergeInto ?? "",
                operation: state.operationID ?? "",
                policy: state.mergePolicy ?? .keepBoth
            )
        case .deleting:
            self = .deleting(operation: state.operationID ?? "", reason: state.deletionReason ?? .userRequest)
        }
    }

    /// The wire state of `uid` in this phase.
    public func state(of uid: String, sinceMilliseconds: UInt64? = nil) -> AccountState {
        switch self {
        case .guest, .member: AccountState(uid: uid, kind: .active)
        case .merging(let into, let operation, let policy):
            AccountState(
                uid: uid,
                kind: .merging,
                mergeInto: into,
                operationID: operation,
                sinceMilliseconds: sinceMilliseconds,
                mergePolicy: policy
            )
        case .deleting(let operation, let reason):
            AccountState(
                uid: uid,
                kind: .deleting,
                operationID: operation,
                sinceMilliseconds: sinceMilliseconds,
                deletionReason: reason
            )
        }
    }
}

/// What happens to an account.
public enum LifecycleEvent: Hashable, Sendable {
    /// A guest's merge into `account` begins: the guest proved the account's credential in the same transaction.
    case beginMerge(into: String, operation: String, policy: MergePolicy)
    /// A deletion begins; `onlyIfIdle`: the inactivity clean-up, which deletes only a guest still idle.
    case beginDelete(operation: String, reason: DeletionReason, onlyIfIdle: Bool)
    /// The saga of the merge or deletion under `operation` has done every other step: the account goes.
    case finish(operation: String)
}

/// What the state machine needs to know beyond the account's own phase, asked only when a decision depends on it
/// (identity answers from the same transaction; tests answer from a table).
public protocol LifecycleFacts {
    /// The phase of another account (a merge's target), nil when it does not exist.
    func phase(of uid: String) async throws -> AccountPhase?
    /// Whether a guest is being merged into the account.
    func isMergeTarget(_ uid: String) async throws -> Bool
    /// Whether the account has been idle since before the inactivity clean-up's cutoff.
    func isIdle(_ uid: String) async throws -> Bool
}

/// The state machine's answer to an event.
public enum LifecycleDecision: Hashable, Sendable {
    /// The account moves to the phase (nil: it is removed). A move into `merging` or `deleting` signs it out
    /// everywhere.
    case move(to: AccountPhase?)
    /// The event repeats one already applied (a retry under the same operation): nothing changes.
    case unchanged
    /// The event is refused; nothing changes.
    case refuse(LifecycleRefusal)
}

/// Why the state machine refused an event.
public enum LifecycleRefusal: Hashable, Sendable {
    /// The account is merging or deleting under another operation.
    case busy(AccountPhase)
    /// Only a guest can be merged into another account.
    case guestRequired
    /// A guest cannot be merged into itself.
    case mergeIntoItself
    /// The merge's target does not exist.
    case targetNotFound
    /// The merge's target cannot take a merge now: it is merging or deleting (or a guest, which holds no
    /// credential a guest could have proved).
    case targetUnavailable(AccountPhase)
    /// The inactivity clean-up found the account active (a member, or a guest active since the cutoff).
    case stillActive
    /// A guest is being merged into the account: deleting it now would orphan what the merge moves in.
    case mergeTargetBusy
    /// The account is not merging or deleting under the operation being finished.
    case notUnder(operation: String, phase: AccountPhase)
}

extension AccountPhase {
    /// What `event` does to an account of `uid` in this phase.
    public func decide(
        _ event: LifecycleEvent,
        uid: String,
        facts: some LifecycleFacts
    ) async throws -> LifecycleDecision {
        switch event {
        case .beginMerge(let target, let operation, let policy):
            if case .merging(target, operation, _) = self { return .unchanged }
            guard isLive else { return .refuse(.busy(self)) }
            guard allows(.merge) else { return .refuse(.guestRequired) }
            guard target != uid else { return .refuse(.mergeIntoItself) }
            guard let targetPhase = try await facts.phase(of: target) else { return .refuse(.targetNotFound) }
            guard targetPhase.allows(.beMergeTarget) else { return .refuse(.targetUnavailable(targetPhase)) }
            return .move(to: .merging(into: target, operation: operation, policy: policy))

        case .beginDelete(let operation, let reason, let onlyIfIdle):
            if case .deleting(operation, _) = self { return .unchanged }
            if case .merging(let target, _, _) = self {
                // A guest merging into an account that has since gone can never finish its merge: deleting it is
                // the way out (cleanup's recovery takes it).
                guard try await facts.phase(of: target) == nil else { return .refuse(.busy(self)) }
            } else if !isLive {
                return .refuse(.busy(self))
            }
            if onlyIfIdle {
                guard self == .guest, try await facts.isIdle(uid) else { return .refuse(.stillActive) }
            }
            if self == .member, try await facts.isMergeTarget(uid) { return .refuse(.mergeTargetBusy) }
            return .move(to: .deleting(operation: operation, reason: reason))

        case .finish(let operation):
            guard self.operation == operation else { return .refuse(.notUnder(operation: operation, phase: self)) }
            return .move(to: nil)
        }
    }
}
