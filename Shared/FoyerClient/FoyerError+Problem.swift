import Foundation
import FoyerAPI
import FoyerJSON
import FoyerRPC
import FoyerWire
import NIOCore

extension FoyerError {
    /// The error for a problem+json answer of the gateway's HTTP edge: the same status and details as the binary
    /// protocol's answer to the same call. The problem's `wireStatus` is the binary status; its members
    /// (`counter`, `limit`, `currentVersion`, ...) become the binary details; `retryAfterMs`, else the
    /// `Retry-After` header, the retry-after hint. A problem without a wire status (a body the edge refused, a
    /// proxy's error page) is mapped from its HTTP status.
    init(problem json: JSONValue?, httpStatus: Int, retryAfterHeader: String?) {
        let members: [String: JSONValue]
        if case .object(let object)? = json { members = object } else { members = [:] }
        let status: RPCStatus
        if case .int(let raw)? = members["wireStatus"], let wire = UInt16(exactly: raw) {
            status = RPCStatus(rawValue: wire)
        } else {
            status = Self.status(httpStatus: httpStatus)
        }
        var retryAfter: UInt32 = 0
        if case .int(let milliseconds)? = members["retryAfterMs"] {
            retryAfter = UInt32(clamping: milliseconds)
        } else if let header = retryAfterHeader, let seconds = UInt32(header.trimmingCharacters(in: .whitespaces)) {
            retryAfter = seconds.multipliedReportingOverflow(by: 1000).overflow ? .max : seconds * 1000
        }
        var message = "HTTP \(httpStatus)"
        if case .string(let detail)? = members["detail"] { message = detail }
        self.init(
            RPCError(
                status,
                message,
                details: Self.details(status: status, members) ?? ByteBuffer(),
                retryAfterMilliseconds: retryAfter
            )
        )
    }

    /// The status of an HTTP answer that names none.
    static func status(httpStatus: Int) -> RPCStatus {
        switch httpStatus {
        case 401: .unauthenticated
        case 403: .permissionDenied
        case 404: .notFound
        case 429: GatewayStatus.rateLimited
        case 502, 503: .unavailable
        case 504: .deadlineExceeded
        case 400..<500: .invalidArgument
        default: .internal
        }
    }

    /// The binary details of the statuses whose details `FoyerError` decodes, from the problem's members.
    private static func details(status: RPCStatus, _ members: [String: JSONValue]) -> ByteBuffer? {
        func count(_ name: String) -> UInt64? {
            switch members[name] {
            case .int(let value)? where value >= 0: UInt64(value)
            case .uint(let value)?: value
            default: nil
            }
        }
        switch status {
        case GuestQuotaStatus.quotaExceeded:
            guard case .string(let counter)? = members["counter"], let limit = count("limit"), let used = count("used")
            else { return nil }
            let usage = CounterUsage(counter: counter, limit: limit, used: used)
            return QuotaExceededDetails(usage: usage, requested: count("requested") ?? 0).encoded()
        case UserDataStatus.versionMismatch:
            return count("currentVersion").map { VersionMismatchDetails(currentVersion: $0).encoded() }
        case UserDataStatus.valueTooLarge:
            guard let limit = count("valueLimit") else { return nil }
            return ValueTooLargeDetails(size: count("valueSize") ?? 0, limit: limit).encoded()
        default:
            return nil
        }
    }
}
