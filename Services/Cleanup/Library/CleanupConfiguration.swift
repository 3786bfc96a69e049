public import Foundation
import FoyerCrypto
public import FoyerLifecycle
public import FoyerRPC
public import FoyerStorage

/// Everything cleanup can be told, with the defaults a deployment gets unless it says otherwise. Plain data: the
/// executable maps flags and environment onto it; tests build it directly.
public struct CleanupConfiguration: Sendable {
    /// Where cleanup keeps its tables: deletion records, claims, the pseudonym key (SQLite by default, PostgreSQL
    /// by URL; replicas that share the work must share one PostgreSQL database).
    public var database: DatabaseConfiguration
    /// The services cleanup drives. Their `defaultCallTimeout` bounds each step of a deletion or merge.
    public var identity: RPCClientConfiguration
    public var guestQuota: RPCClientConfiguration
    public var userData: RPCClientConfiguration

    /// Guests whose last activity is older than this are deleted with everything they own. Inactivity, not age.
    /// Default 30 days.
    public var guestTTL: Duration = .seconds(30 * 86_400)
    /// How stale identity lets a user's recorded activity be (its `activityRecordInterval`, 10 minutes): a guest in
    /// use may look idle for that long, so a shorter `guestTTL` could delete guests being used, and `validate`
    /// refuses one.
    public static let identityActivityRecordInterval: Duration = .seconds(600)
    /// Allows a `guestTTL` shorter than `identityActivityRecordInterval`, for benchmarks and trials that want every
    /// guest gone at once (`--allow-short-ttl`). Default false.
    public var allowsShortGuestTTL = false
    /// Time between the end of one sweep and the start of the next. Default 60 seconds.
    public var sweepInterval: Duration = .seconds(60)
    /// Accounts left in `merging` or `deleting` longer than this are finished by the sweep. It must be longer than
    /// a gateway's merge or deletion can take, so that cleanup never races one still running. Default 15 minutes.
    public var recoveryGrace: Duration = .seconds(15 * 60)
    /// Accounts asked for per page (expired guests, stuck accounts). 1–1000; default 100.
    public var batchSize: Int = 100
    /// Pages per sweep and per kind of work, so a sweep handles at most `batchSize * pagesPerSweep` expired guests
    /// and as many stuck accounts, and deletes at most that many old records. Default 10.
    public var pagesPerSweep: Int = 10
    /// Batches of expired guests deleted at once: each page is split into this many batches, each deleted with
    /// one batch call per step and service (one commit per step for the whole batch). Default 8: the steps are
    /// round trips to three services, so a few in flight keep them busy without crowding out clients' calls.
    public var deletionConcurrency: Int = 8
    /// How long a deletion record is kept; older ones are removed by the sweep. Default 731 days: at least 24
    /// months whatever the day a record is made (two years hold a leap day at most once), the time a request to
    /// delete must be answerable for (CCPA § 7101). A record holds no personal data: a keyed hash of the uid, the
    /// reason and the time.
    public static let defaultRecordRetention: Duration = .seconds(731 * 86_400)
    public var recordRetention: Duration = CleanupConfiguration.defaultRecordRetention
    /// The app's merge and delete hooks (the gateway must be given the same); nil: none.
    public var appHooks: AppHookSettings?
    /// How long a replica's claim on an account keeps other replicas away once it stops renewing it (it renews every
    /// third of this while it works): a claim older than this (its replica died mid-account) may be taken over.
    /// Default 30 seconds.
    public var claimLifetime: Duration = .seconds(30)
    /// A dry run counts expired guests up to this many (in pages of 1000). Default 100,000.
    public var dryRunCountMax: Int = 100_000
    /// This replica's name, unique among the replicas sharing a database: it marks the claims it takes.
    /// Default: the host name and the process id.
    public var replicaID: String = CleanupConfiguration.defaultReplicaID()
    /// The key of the pseudonymous ids (HMAC-SHA-256 of the uid), at least 32 bytes. `nil` (default): a random key
    /// created on first start and kept in cleanup's database, shared by every replica of that database. Changing
    /// the key changes every pseudonymous id from then on (older records keep theirs).
    public var pseudonymKey: [UInt8]?
    /// The clock (TTL cutoff, record times, retention, claims). Tests inject a manual one.
    public var now: @Sendable () -> Date = { Date() }

    public init(
        database: DatabaseConfiguration,
        identity: RPCClientConfiguration,
        guestQuota: RPCClientConfiguration,
        userData: RPCClientConfiguration
    ) {
        self.database = database
        self.identity = identity
        self.guestQuota = guestQuota
        self.userData = userData
    }

    /// `<host name>-<process id>`.
    public static func defaultReplicaID() -> String {
        let host = ProcessInfo.processInfo.hostName.prefix(100)
        return "\(host.isEmpty ? "cleanup" : String(host))-\(ProcessInfo.processInfo.processIdentifier)"
    }

    /// A pseudonym key given as base64url text (43 or more characters for 32 or more bytes).
    ///
    /// - Throws: ``CleanupConfigurationError`` if the text is not base64url or the key is shorter than 32 bytes.
    public static func pseudonymKey(base64URL text: String) throws -> [UInt8] {
        guard let key = try? Base64URL.decode(text), key.count >= 32 else {
            throw CleanupConfigurationError.invalidSetting("the pseudonym key must be base64url of at least 32 bytes")
        }
        return key
    }

    /// Checks the settings; `CleanupService.make` calls it before opening anything.
    ///
    /// - Throws: ``CleanupConfigurationError`` naming the setting.
    public func validate() throws {
        func require(_ condition: Bool, _ message: @autoclosure () -> String) throws {
            guard condition else { throw CleanupConfigurationError.invalidSetting(message()) }
        }
        try require(guestTTL > .zero, "the guest TTL must be positive")
        try require(
            allowsShortGuestTTL || guestTTL >= Self.identityActivityRecordInterval,
            "the guest TTL must be at least 10 minutes, identity's activity-recording interval: a shorter one could "
                + "delete guests in use (--allow-short-ttl for benchmarks)"
        )
        try require(sweepInterval > .zero, "the sweep interval must be positive")
        try require(recoveryGrace >= .zero, "the recovery grace must not be negative")
        try require((1...1000).contains(batchSize), "the batch size must be 1–1000, not \(batchSize)")
        try require((1...10_000).contains(pagesPerSweep), "pages per sweep must be 1–10000, not \(pagesPerSweep)")
        try require(
            (1...64).contains(deletionConcurrency),
            "the deletion concurrency must be 1–64, not \(deletionConcurrency)"
        )
        try require(recordRetention > .zero, "the record retention must be positive")
        try require(claimLifetime > .zero, "the claim lifetime must be positive")
        try require(dryRunCountMax >= 1, "the dry-run count cap must be at least 1")
        try require(!replicaID.isEmpty && replicaID.utf8.count <= 128, "the replica id must be 1–128 bytes")
        if let pseudonymKey {
            try require(pseudonymKey.count >= 32, "the pseudonym key must be at least 32 bytes")
        }
    }
}

/// A configuration cleanup cannot use.
public struct CleanupConfigurationError: Error, Hashable, Sendable, CustomStringConvertible {
    private enum Code: Hashable, Sendable {
        case invalidSetting
    }

    private let code: Code
    /// What is wrong, for the operator.
    public let message: String

    private init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.code == rhs.code }
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }
    public var description: String { message }

    public static func invalidSetting(_ message: String) -> Self { Self(.invalidSetting, message) }
    public static let invalidSetting = invalidSetting("")
}
