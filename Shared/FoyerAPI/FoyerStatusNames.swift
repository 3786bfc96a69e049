public import FoyerWire

/// The names of every status a gateway call can end with: the gateway's own, those of the services behind it
/// (which pass through unchanged) and the runtime's.
public enum FoyerStatusNames {
    /// `quota-exceeded`, `token-expired`, `members-only`...; `status-0x....` for a status no part of Foyer defines.
    public static func name(of status: RPCStatus) -> String {
        switch status.rawValue & 0x0F00 {
        case 0x0500:
            if let name = GatewayStatus.name(of: status) { return name }
        case 0x0100:
            if let name = IdentityStatus.names[status] { return name }
        case 0x0200:
            if let name = GuestQuotaStatus.name(of: status) { return name }
        case 0x0300:
            if let name = UserDataStatus.name(of: status) { return name }
        default:
            break
        }
        return status.description
    }
}
