import PostgresKit

/// The database cannot serve the call now, and nothing of it was committed: PostgreSQL cannot be reached, is
/// shutting down or starting up, or dropped the connection before COMMIT was sent; a statement ran past the
/// statement timeout; or the disk is full (SQLite `SQLITE_FULL`, PostgreSQL `53100`). The services answer it `unavailable` (not processed, safe to send again): it
/// passes once the database is back or has space again, without a restart (the pools open new connections).
///
/// ``FoyerDatabase`` throws it from `withConnection` and `transaction` in place of the driver's error, which stays
/// in ``underlying`` for the log. A connection lost while COMMIT was in flight is not this error (the commit may
/// have happened): see ``FoyerStorageError/commitOutcomeUnknown(_:)``.
public struct DatabaseUnavailable: Error, Sendable, CustomStringConvertible {
    /// Why the database cannot serve the call.
    public enum Reason: String, Sendable, Equatable {
        /// The server cannot be reached or dropped the connection (down, restarting, out of connections), or no
        /// connection became free within the acquire timeout.
        case unreachable
        /// The disk holding the database is full.
        case diskFull = "disk-full"
        /// A statement ran past the statement timeout (PostgreSQL cancelled it, `57014`, or had not answered it
        /// by the client's deadline): blocked on a lock, or the server is overloaded or gone.
        case timedOut = "timed-out"
    }

    /// Why the database cannot serve the call.
    public let reason: Reason
    /// The driver's error, described (for the log; never sent to a client).
    public let underlying: String

    public var description: String {
        "the database is unavailable (\(reason.rawValue)): \(underlying)"
    }

    /// `error` as a ``DatabaseUnavailable`` when it says the database cannot serve calls now, else `nil`.
    static func classifying(_ error: any Error) -> DatabaseUnavailable? {
        if let error = error as? DatabaseUnavailable { return error }
        guard let reason = reason(of: error) else { return nil }
        return DatabaseUnavailable(reason: reason, underlying: String(reflecting: error))
    }

    private static func reason(of error: any Error) -> Reason? {
        switch error {
        case let error as SQLiteFailure:
            return error.primaryCode == SQLiteFailure.full ? .diskFull : nil
        case let error as PSQLError:
            return reason(of: error)
        case let error as PostgresError:
            // PostgresNIO's older API (the futures `query(String)` returns) turns a closed connection into these.
            switch error {
            case .connectionClosed: return .unreachable
            case .protocol(let message) where message == "Unexpected connection close": return .unreachable
            default: return nil
            }
        case is ConnectionPoolTimeoutError, is NIOConnectionError, is ChannelError, is IOError:
            return .unreachable
        case is PostgresStatementDeadline.Exceeded:
            return .timedOut
        default:
            return nil
        }
    }

    private static func reason(of error: PSQLError) -> Reason? {
        switch error.code {
        case .connectionError, .serverClosedConnection, .uncleanShutdown:
            return .unreachable
        case .server:
            let state = error.serverInfo?[.sqlState] ?? ""
            if state == "53100" { return .diskFull }
            // 57014: the statement was cancelled (by `statement_timeout`, or by an operator's pg_cancel_backend).
            if state == "57014" { return .timedOut }
            // 08: connection exception; 57P01–57P03: admin or crash shutdown, cannot connect now (starting up or
            // shutting down); 53300: too many connections.
            let unreachable = state.hasPrefix("08") || ["57P01", "57P02", "57P03", "53300"].contains(state)
            return unreachable ? .unreachable : nil
        default:
            return nil
        }
    }
}
