public import Foundation
public import FoyerStorage
import Synchronization

/// Everything guest-quota can be told, with the defaults a deployment gets unless it says otherwise. Plain data:
/// the executable maps flags and environment onto it; tests build it directly.
public struct GuestQuotaConfiguration: Sendable {
    /// Where the service keeps its tables (SQLite by default, PostgreSQL by URL).
    public var database: DatabaseConfiguration
    /// The plans: per plan, counter limits and features. Default: `PlanCatalog.defaults` (guest and member);
    /// load a file with ``loadPlans(from:)``.
    public var plans: PlanCatalog = .defaults
    /// The plan whose accounts are guests: they count towards ``liveGuestsMax``. Default `guest`; must be in
    /// ``plans``.
    public var guestPlan: String = "guest"
    /// Guest sign-ups a source (an IPv4 address, or an IPv6 /64) may make per hour, on average. Default 30.
    public var signupsPerSourcePerHour: Int = 30
    /// Sign-ups a source may make at once after a quiet period (the bucket's size). Default 30.
    public var signupBurstPerSource: Int = 30
    /// Guest sign-ups all the sources of one IPv6 /48 may make per hour together, on average, besides each /64's
    /// own limit (IPv4 sources have no such bucket). Default 120 (four /64s' worth).
    public var signupsPerNetworkPerHour: Int = 120
    /// Sign-ups one IPv6 /48 may make at once after a quiet period. Default 120.
    public var signupBurstPerNetwork: Int = 120
    /// Most live guests (accounts on ``guestPlan``); sign-ups beyond it are refused `guest-cap-reached`.
    /// Default 1,000,000.
    public var liveGuestsMax: Int = 1_000_000
    /// The share of ``liveGuestsMax`` past which guest-quota logs a warning that the cap is near (at most once every
    /// ten minutes per replica), so an operator can act before sign-ups are refused. Default 0.8.
    public var liveGuestsWarningFraction: Double = 0.8
    /// The retry-after sent with `guest-cap-reached` (space frees up only as guests upgrade or are deleted).
    /// Default 5 minutes.
    public var guestCapRetryAfter: Duration = .seconds(300)
    /// How long a consume's idempotency key is remembered (for retries and refunds). Default 24 hours.
    public var idempotencyRetention: Duration = .seconds(24 * 3600)
    /// How long a merge's record (its op row, which names both uids) is kept before it is pruned: longer than any
    /// retry or recovery of the merge can come. Keep it equal to user-data's. Default 7 days; at least a minute.
    public var mergeRecordRetention: Duration = .seconds(7 * 86_400)
    /// How often the denials counted in memory are added to `guest_quota_denials` (``DenialFlushLoop``; also on
    /// graceful shutdown), so that every replica's `stats` counts them. A crash loses at most this much of the
    /// statistic. Default 10 seconds; 1 second to 1 hour.
    public var denialFlushInterval: Duration = .seconds(10)
    /// The clock (sign-up buckets, record times). Tests inject a manual one.
    public var now: @Sendable () -> Date = { Date() }
    /// Test only: fails chosen operations once, right after their transaction committed, so that tests can check
    /// that a retry of an operation whose answer was lost has the effect of one. `nil` (default) in production.
    public var failureInjection: FailureInjection?

    public init(database: DatabaseConfiguration) {
        self.database = database
    }

    /// Reads a plans file (JSON). See ``PlanCatalog/init(json:)`` for the format.
    ///
    /// - Throws: ``GuestQuotaConfigurationError`` naming the file and what is wrong in it.
    public static func loadPlans(from path: String) throws -> PlanCatalog {
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw GuestQuotaConfigurationError.unreadablePlansFile(
                "cannot read plans file \(path): \(error.localizedDescription)"
            )
        }
        do {
            return try PlanCatalog(json: data)
        } catch let error as GuestQuotaConfigurationError {
            throw error.inFile(path)
        }
    }

    /// Checks the settings against each other; `GuestQuotaService.make` calls it before opening anything.
    public func validate() throws {
        try plans.validate()
        guard plans.plans[guestPlan] != nil else {
            throw GuestQuotaConfigurationError.invalidSetting(
                "guestPlan '\(guestPlan)' is not one of the configured plans (\(plans.plans.keys.sorted().joined(separator: ", ")))"
            )
        }
        guard signupsPerSourcePerHour >= 1, signupBurstPerSource >= 1 else {
            throw GuestQuotaConfigurationError.invalidSetting(
                "signupsPerSourcePerHour and signupBurstPerSource must be at least 1"
            )
        }
        guard signupsPerNetworkPerHour >= 1, signupBurstPerNetwork >= 1 else {
            throw GuestQuotaConfigurationError.invalidSetting(
                "signupsPerNetworkPerHour and signupBurstPerNetwork must be at least 1"
            )
        }
        guard liveGuestsWarningFraction > 0, liveGuestsWarningFraction <= 1 else {
            throw GuestQuotaConfigurationError.invalidSetting("liveGuestsWarningFraction must be in (0, 1]")
        }
        guard liveGuestsMax >= 0 else {
            throw GuestQuotaConfigurationError.invalidSetting("liveGuestsMax must not be negative")
        }
        guard guestCapRetryAfter >= .zero, guestCapRetryAfter <= .seconds(86_400) else {
            throw GuestQuotaConfigurationError.invalidSetting("guestCapRetryAfter must be between 0 and 24 hours")
        }
        guard idempotencyRetention >= .seconds(60) else {
            throw GuestQuotaConfigurationError.invalidSetting("idempotencyRetention must be at least a minute")
        }
        guard mergeRecordRetention >= .seconds(60) else {
            throw GuestQuotaConfigurationError.invalidSetting("mergeRecordRetention must be at least a minute")
        }
        guard denialFlushInterval >= .seconds(1), denialFlushInterval <= .seconds(3600) else {
            throw GuestQuotaConfigurationError.invalidSetting("denialFlushInterval must be between 1 second and 1 hour")
        }
    }
}

extension GuestQuotaConfiguration {
    /// Test only: makes chosen operations fail once, right after their transaction committed (the effect is
    /// stored, the answer is an `internal` error, as if the process died before answering).
    public final class FailureInjection: Sendable {
        public enum Point: Sendable, Hashable {
            case afterConsume, afterRefund, afterOpenAccount, afterChangePlan, afterMerge, afterDeleteAll
        }

        private let armed: Mutex<Set<Point>>

        public init(_ points: Set<Point>) { self.armed = Mutex(points) }

        /// The points that have not fired yet.
        public var pending: Set<Point> { armed.withLock { $0 } }

        /// Throws once for an armed point, then disarms it.
        func fire(_ point: Point) throws {
            let fired = armed.withLock { $0.remove(point) != nil }
            if fired { throw InjectedFailure(point: point) }
        }
    }

    /// The error a ``FailureInjection`` throws (answered `internal`, outcome unknown).
    struct InjectedFailure: Error, CustomStringConvertible {
        let point: FailureInjection.Point
        var description: String { "injected failure \(point)" }
    }
}

/// A configuration or plans file that guest-quota cannot use.
public struct GuestQuotaConfigurationError: Error, Hashable, Sendable, CustomStringConvertible {
    private enum Code: Hashable, Sendable {
        case unreadablePlansFile, invalidPlans, invalidSetting
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

    public static func unreadablePlansFile(_ message: String) -> Self { Self(.unreadablePlansFile, message) }
    public static func invalidPlans(_ message: String) -> Self { Self(.invalidPlans, message) }
    public static func invalidSetting(_ message: String) -> Self { Self(.invalidSetting, message) }
    public static let unreadablePlansFile = unreadablePlansFile("")
    public static let invalidPlans = invalidPlans("")
    public static let invalidSetting = invalidSetting("")

    func inFile(_ path: String) -> Self {
        code == .invalidPlans ? Self(code, "plans file \(path): \(message)") : self
    }
}
