import FoyerAPI
import FoyerJSON
import FoyerRPC
import FoyerWire

/// An RFC 9457 problem: how every failure of the HTTP edge is answered (`application/problem+json`).
///
/// `name` is the status name the binary protocol uses (`quota-exceeded`, `invalid-token`...), `status` the HTTP
/// status from ``ProblemMapping``, `fields` the binary error's details as members of the problem object.
struct HTTPProblem: Error, Sendable {
    var status: Int
    var name: String
    var detail: String
    var wireStatus: UInt16?
    var fields: [String: JSONValue] = [:]
    /// `Retry-After` in milliseconds; nil when the server gave no hint.
    var retryAfterMilliseconds: UInt32?

    /// A request the edge itself refuses before any handler runs: malformed JSON, a missing header or field.
    static func invalidArgument(_ detail: String) -> HTTPProblem {
        HTTPProblem(
            status: 400,
            name: "invalid-argument",
            detail: detail,
            wireStatus: RPCStatus.invalidArgument.rawValue
        )
    }

    static func notFound(_ detail: String) -> HTTPProblem {
        HTTPProblem(status: 404, name: "not-found", detail: detail, wireStatus: RPCStatus.notFound.rawValue)
    }

    static func methodNotAllowed(_ detail: String) -> HTTPProblem {
        HTTPProblem(status: 405, name: "method-not-allowed", detail: detail)
    }

    static func bodyTooLarge(limit: Int) -> HTTPProblem {
        HTTPProblem(
            status: 413,
            name: "body-too-large",
            detail: "the request body is larger than \(limit) bytes",
            fields: ["bodyLimit": JSONValue(UInt64(limit))]
        )
    }

    static func unsupportedMediaType(_ contentType: String?) -> HTTPProblem {
        HTTPProblem(
            status: 415,
            name: "unsupported-media-type",
            detail: "a request body must be sent as Content-Type: application/json, not \(contentType ?? "none")"
        )
    }

    static func unavailable(_ detail: String) -> HTTPProblem {
        HTTPProblem(status: 503, name: "unavailable", detail: detail, wireStatus: RPCStatus.unavailable.rawValue)
    }

    /// The problem for a binary answer: its status name, the HTTP status of ``ProblemMapping`` (`forCaller` as
    /// there), and its details.
    init(_ error: RPCError, forCaller: Bool = false) {
        let name = FoyerStatusNames.name(of: error.status)
        self.init(
            status: ProblemMapping.httpStatus(name: name, status: error.status, forCaller: forCaller),
            name: name,
            detail: error.message,
            wireStatus: error.status.rawValue,
            fields: ProblemMapping.detailFields(name: name, details: error.details),
            retryAfterMilliseconds: error.retryAfterMilliseconds > 0 ? error.retryAfterMilliseconds : nil
        )
    }

    init(
        status: Int,
        name: String,
        detail: String,
        wireStatus: UInt16? = nil,
        fields: [String: JSONValue] = [:],
        retryAfterMilliseconds: UInt32? = nil
    ) {
        self.status = status
        self.name = name
        self.detail = detail
        self.wireStatus = wireStatus
        self.fields = fields
        self.retryAfterMilliseconds = retryAfterMilliseconds
    }

    /// The problem object.
    var json: JSONValue {
        var members = fields
        members["type"] = .string("https://foyer.dev/problems/\(name)")
        members["title"] = .string(name)
        members["status"] = .int(Int64(status))
        members["detail"] = .string(detail)
        members["code"] = .string(name)
        if let wireStatus { members["wireStatus"] = .int(Int64(wireStatus)) }
        if let retryAfterMilliseconds { members["retryAfterMs"] = .int(Int64(retryAfterMilliseconds)) }
        return .object(members)
    }

    /// `Retry-After` in whole seconds, rounded up.
    var retryAfterSeconds: Int? {
        retryAfterMilliseconds.map { (Int($0) + 999) / 1000 }
    }
}
