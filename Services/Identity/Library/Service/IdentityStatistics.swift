import Synchronization

/// Counters of what the service did since it started, for operators and tests (which check, for instance, that
/// an unknown email costs a password hash like a known one, and that an oversized password costs none).
public final class IdentityStatistics: Sendable {
    private let hashes = Atomic<Int>(0)
    private let sessions = Atomic<Int>(0)
    private let keyFetches = Atomic<Int>(0)
    private let mails = Atomic<Int>(0)

    init() {}

    /// scrypt derivations run (hashing new passwords, verifying, and the dummy for unknown emails).
    public var passwordHashes: Int { hashes.load(ordering: .relaxed) }
    /// Sessions started (sign-ins, sign-ups, guest creations, ticket redemptions).
    public var sessionsStarted: Int { sessions.load(ordering: .relaxed) }
    /// Fetches of a provider's JWKS (URL or file), successful or not.
    public var providerKeyFetches: Int { keyFetches.load(ordering: .relaxed) }
    /// Emails handed to the mailer.
    public var mailsSent: Int { mails.load(ordering: .relaxed) }

    func passwordHashed() { hashes.add(1, ordering: .relaxed) }
    func sessionStarted() { sessions.add(1, ordering: .relaxed) }
    func providerKeysFetched() { keyFetches.add(1, ordering: .relaxed) }
    func mailSent() { mails.add(1, ordering: .relaxed) }
}
