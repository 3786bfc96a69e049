/// One of Foyer's five executables, as ``StackProcesses`` starts them.
public enum StackService: String, CaseIterable, Sendable, CustomStringConvertible {
    case identity
    case guestQuota = "guest-quota"
    case userData = "user-data"
    case cleanup
    case gateway

    /// The executable's file name, which is also the service's name (its SQLite file, its log).
    public var executableName: String { rawValue }

    public var description: String { rawValue }

    /// The variable through which the other services find this one (the gateway is found by clients only); a
    /// per-service environment override of it points one service elsewhere (e.g. the gateway at a proxy).
    public var addressVariable: String? {
        switch self {
        case .identity: "FOYER_IDENTITY_ADDRESS"
        case .guestQuota: "FOYER_GUEST_QUOTA_ADDRESS"
        case .userData: "FOYER_USER_DATA_ADDRESS"
        case .cleanup: "FOYER_CLEANUP_ADDRESS"
        case .gateway: nil
        }
    }
}

/// Where the services of a stack keep their data.
public enum StackDatabase: Sendable, Equatable {
    /// An SQLite file per service in the data directory (`<data>/<service>.sqlite`), as deployed by default.
    case sqlite
    /// One PostgreSQL database; each service keeps its tables in the schema `<schemaPrefix>_<service>`, so several
    /// stacks can share one server without seeing each other's rows.
    case postgres(url: String, schemaPrefix: String)

    /// The PostgreSQL schema of `service` (nil on SQLite).
    public func schema(of service: StackService) -> String? {
        guard case .postgres(_, let prefix) = self else { return nil }
        return "\(prefix)_\(service.rawValue.replacingOccurrences(of: "-", with: "_"))"
    }
}
