public import FoyerRPC
public import FoyerStorage

/// A database that cannot serve the call now (down, restarting, disk full) is answered `unavailable`: nothing was
/// committed, so the call is safe to send again once the database is back. The storage layer has logged the cause.
extension DatabaseUnavailable: RPCStatusMapping {
    public var rpcError: RPCError {
        RPCError(.unavailable, "the service's database is unavailable (\(reason.rawValue)); try again later")
    }
}
