public import ArgumentParser
public import FoyerRPC

/// The addresses of the three store-owning services that both the gateway and cleanup call; the gateway adds
/// cleanup's own. Each flag also comes from its `FOYER_…_ADDRESS` variable (see ``UpstreamService``).
public struct UpstreamAddressOptions: ParsableArguments, Sendable {
    @Option(help: "identity's address. (env: FOYER_IDENTITY_ADDRESS; default: 127.0.0.1:7401)")
    public var identity: String?
    @Option(help: "guest-quota's address. (env: FOYER_GUEST_QUOTA_ADDRESS; default: 127.0.0.1:7402)")
    public var guestQuota: String?
    @Option(help: "user-data's address. (env: FOYER_USER_DATA_ADDRESS; default: 127.0.0.1:7403)")
    public var userData: String?

    public init() {}

    /// Clients of identity, guest-quota and user-data at the addresses given, else at their defaults.
    /// - Throws: `ValidationError` naming the flag and the variable of an address that is not `HOST:PORT`.
    public func clients(
        _ startup: ServiceStartup
    ) throws -> (identity: RPCClientConfiguration, guestQuota: RPCClientConfiguration, userData: RPCClientConfiguration)
    {
        (
            try startup.client(of: .identity, flag: identity),
            try startup.client(of: .guestQuota, flag: guestQuota),
            try startup.client(of: .userData, flag: userData)
        )
    }
}
