import FoyerAPI
import FoyerWire

/// The name of every status a gateway call can end with, from the same tables the binary client uses: the
/// gateway's own, those of the services behind it (which pass through unchanged) and the runtime's.
enum StatusNames {
    /// `quota-exceeded`, `token-expired`, `members-only`...; `status-0x....` for a status no part of Foyer defines.
    static func name(of status: RPCStatus) -> String {
        let name: String? =
            switch status.rawValue & 0x0F00 {
            case 0x0500: GatewayStatus.name(of: status)
            case 0x0100: IdentityStatus.names[status]
            case 0x0200: GuestQuotaStatus.name(of: status)
            case 0x0300: UserDataStatus.name(of: status)
            default: nil
            }
        return name ?? status.description
    }
}
