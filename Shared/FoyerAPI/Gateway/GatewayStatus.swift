public import FoyerWire

/// The gateway's own statuses (`0x35nn`, all "rejected": sending the same request again gets the same answer).
public enum GatewayStatus {
    /// A members-only feature was asked for by a guest; linking a credential lifts it.
    public static let membersOnly = RPCStatus(rawValue: 0x3501)
    /// An operation id or idempotency key came back with a different request.
    public static let operationReused = RPCStatus(rawValue: 0x3502)
    /// The operation needs a guest, and the caller is a member (or the other way round).
    public static let wrongAccountKind = RPCStatus(rawValue: 0x3503)

    public static func name(of status: RPCStatus) -> String? {
        switch status {
        case membersOnly: "members-only"
        case operationReused: "operation-reused"
        case wrongAccountKind: "wrong-account-kind"
        default: nil
        }
    }
}
