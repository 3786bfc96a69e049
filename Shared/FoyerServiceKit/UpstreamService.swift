public import FoyerRPC

/// A service of the cluster that another one calls (the gateway calls all four, cleanup the first three): the
/// flag and variable that give its address, and the address it has when everything runs on one machine.
public enum UpstreamService: String, Sendable, CaseIterable {
    case identity
    case guestQuota = "guest-quota"
    case userData = "user-data"
    case cleanup

    /// `--identity` / `FOYER_IDENTITY_ADDRESS`, and so on.
    public var setting: Setting<String> {
        let variable = "FOYER_" + rawValue.uppercased().split(separator: "-").joined(separator: "_") + "_ADDRESS"
        return .address("--\(rawValue)", variable)
    }

    /// Its default port on loopback: 7401 for identity to 7404 for cleanup.
    public var defaultAddress: String {
        switch self {
        case .identity: "127.0.0.1:7401"
        case .guestQuota: "127.0.0.1:7402"
        case .userData: "127.0.0.1:7403"
        case .cleanup: "127.0.0.1:7404"
        }
    }
}

extension ServiceStartup {
    /// A client of `upstream` at the address its flag (given here) or variable names, else at its default address.
    /// - Throws: `ValidationError` naming the flag and the variable when the address is not `HOST:PORT`.
    public func client(of upstream: UpstreamService, flag: String?) throws -> RPCClientConfiguration {
        let address = try SettingsReader().value(flag, upstream.setting) ?? upstream.defaultAddress
        return try clientConfiguration(service: upstream.rawValue, address: address)
    }
}
