public import FoyerWire

/// The methods of guest-quota (ids `0x0201`…, range `0x0200`–`0x02FF`). Services/GuestQuota/README.md lists each
/// with its messages and statuses.
///
/// Every method but `admitSignup` is idempotent: repeating it with the same arguments (the same idempotency key
/// for `consume`, the same op id for `merge`) has the effect of one call, so the client may retry it when the
/// outcome is unknown.
public enum GuestQuotaMethods {
    /// Per-source sign-up admission (a token bucket per IPv4 address or IPv6 /64) and the global cap on live
    /// guests. Takes a token, so it is not idempotent.
    public static let admitSignup = RPCMethod<AdmitSignupRequest, AdmitSignupResponse>(
        id: 0x0201,
        name: "guest-quota.admitSignup",
        idempotent: false
    )
    /// Opens the quota account of a new uid on a plan; a guest counts towards the live-guest cap. A guest's account
    /// is also opened by its first `consume` (or `changePlan`), so guest sign-in does not call it.
    public static let openAccount = RPCMethod<OpenQuotaAccountRequest, OpenQuotaAccountResponse>(
        id: 0x0202,
        name: "guest-quota.openAccount",
        idempotent: true
    )
    /// Moves an account to another plan (guest to member on upgrade).
    public static let changePlan = RPCMethod<ChangePlanRequest, ChangePlanResponse>(
        id: 0x0203,
        name: "guest-quota.changePlan",
        idempotent: true
    )
    /// Atomically checks several counters against their limits and adds to them, all or none, once per idempotency
    /// key; opens a guest's account on its first consume. (Id `0x0204`, one counter per call, is retired.)
    public static let consume = RPCMethod<ConsumeRequest, ConsumeResponse>(
        id: 0x020E,
        name: "guest-quota.consume",
        idempotent: true
    )
    /// Undoes a consume by its idempotency key, at most once.
    public static let refund = RPCMethod<RefundRequest, RefundResponse>(
        id: 0x0205,
        name: "guest-quota.refund",
        idempotent: true
    )
    /// Gives back an amount of a counter once per key (a deleted document's share); answers like `refund`.
    public static let release = RPCMethod<ReleaseRequest, RefundResponse>(
        id: 0x020B,
        name: "guest-quota.release",
        idempotent: true
    )
    /// Every counter of the account's plan with limit, used and remaining, and the plan's features.
    public static let usage = RPCMethod<QuotaUsageRequest, QuotaUsageResponse>(
        id: 0x0206,
        name: "guest-quota.usage",
        idempotent: true
    )
    /// Whether the account's plan allows a feature.
    public static let feature = RPCMethod<FeatureCheckRequest, FeatureCheckResponse>(
        id: 0x0207,
        name: "guest-quota.feature",
        idempotent: true
    )
    /// Adds a guest's usage to an account's and deletes the guest's quota account, once per op id.
    public static let merge = RPCMethod<QuotaMergeRequest, QuotaMergeResponse>(
        id: 0x0208,
        name: "guest-quota.merge",
        idempotent: true
    )
    /// Deletes everything guest-quota holds about a uid.
    public static let deleteAll = RPCMethod<QuotaDeleteAllRequest, QuotaDeleteAllResponse>(
        id: 0x0209,
        name: "guest-quota.deleteAll",
        idempotent: true
    )
    /// `deleteAll` for up to 1000 uids in one transaction (the inactivity clean-up): one answer per uid, in order.
    public static let deleteAllBatch = RPCMethod<Batch<QuotaDeleteAllRequest>, Batch<QuotaDeleteAllResponse>>(
        id: 0x020C,
        name: "guest-quota.deleteAllBatch",
        idempotent: true
    )
    /// The live-guest count and cap, for operators and tests.
    public static let stats = RPCMethod<Empty, GuestQuotaStats>(
        id: 0x020A,
        name: "guest-quota.stats",
        idempotent: true
    )
    /// Removes records past their retention: consume keys, full sign-up buckets, merge records (cleanup's sweep;
    /// the service also prunes a few every 64th consume, refund or admission).
    public static let prune = RPCMethod<PruneRequest, PruneResponse>(
        id: 0x020D,
        name: "guest-quota.prune",
        idempotent: true
    )

    // MARK: The operation table

    /// Every method above: the router serves exactly these (`RPCRouter(serving:)`), and the README's method table
    /// is tested against them.
    public static let all: [RPCMethodDescriptor] = [
        admitSignup.descriptor, openAccount.descriptor, changePlan.descriptor, consume.descriptor, refund.descriptor,
        release.descriptor, usage.descriptor, feature.descriptor, merge.descriptor, deleteAll.descriptor,
        deleteAllBatch.descriptor, stats.descriptor, prune.descriptor,
    ]
}
