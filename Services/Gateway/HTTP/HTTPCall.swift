import Foundation
import FoyerAPI
import FoyerJSON
import NIOCore

/// What an operation's request builder reads: the headers it needs, the path's parameters, the query and the
/// JSON body (an empty body reads as `{}`). Every accessor throws the 400 problem naming what is wrong.
struct HTTPCall: Sendable {
    /// `Authorization` (the whole header value), if sent.
    var authorization: String?
    /// `Idempotency-Key`, if sent.
    var idempotencyKeyHeader: String?
    var pathParameters: [String: String] = [:]
    var query: [String: String] = [:]
    var body: [String: JSONValue] = [:]

    /// The access token of `Authorization: Bearer <token>`.
    func bearerToken() throws(HTTPProblem) -> String {
        guard let token = optionalBearerToken() else {
            throw HTTPProblem(
                status: 401,
                name: "invalid-token",
                detail: "an Authorization: Bearer header with an access token is required",
                wireStatus: IdentityStatus.invalidToken.rawValue
            )
        }
        return token
    }

    func optionalBearerToken() -> String? {
        guard let authorization, authorization.count > 7, authorization.prefix(7).lowercased() == "bearer " else {
            return nil
        }
        return String(authorization.dropFirst(7)).trimmingCharacters(in: .whitespaces)
    }

    /// The operation id from `Idempotency-Key` (1–128 bytes of visible ASCII); a random one when absent and not
    /// `required` (the call is then not retry-safe).
    func idempotencyKey(required: Bool) throws(HTTPProblem) -> String {
        guard let key = idempotencyKeyHeader else {
            if required { throw .invalidArgument("the Idempotency-Key header is required") }
            return UUID().uuidString
        }
        let bytes = Array(key.utf8)
        guard (1...GatewayLimits.operationIDByteCountMax).contains(bytes.count), bytes.allSatisfy({ 0x21...0x7E ~= $0 })
        else { throw .invalidArgument("the Idempotency-Key header must be 1-128 bytes of visible ASCII") }
        return key
    }

    /// A path parameter (always present: the route matched it).
    func path(_ name: String) -> String { pathParameters[name] ?? "" }

    func string(_ name: String) throws(HTTPProblem) -> String {
        guard let value = try optionalString(name) else { throw .invalidArgument("\"\(name)\" is required") }
        return value
    }

    func optionalString(_ name: String) throws(HTTPProblem) -> String? {
        try Self.optionalString(name, in: body)
    }

    /// Refuses a member of `object` outside `allowed` (400 naming it; `path` is where the object sits, as in
    /// `credential`), the document's `additionalProperties: false`.
    static func onlyMembers(
        _ allowed: Set<String>,
        of object: [String: JSONValue],
        at path: String? = nil
    )
        throws(HTTPProblem)
    {
        guard let unknown = object.keys.filter({ !allowed.contains($0) }).min() else { return }
        let name = path.map { "\($0).\(unknown)" } ?? unknown
        throw .invalidArgument("unknown member \"\(name)\"")
    }

    /// An optional member: absent, or of its type. `null` is refused like any other wrong type, as the document's
    /// schemas (none of which allow `null`) say.
    static func optionalString(_ name: String, in object: [String: JSONValue]) throws(HTTPProblem) -> String? {
        switch object[name] {
        case nil: return nil
        case .string(let value)?: return value
        default: throw .invalidArgument("\"\(name)\" must be a string")
        }
    }

    func optionalCount(_ name: String) throws(HTTPProblem) -> UInt64? {
        switch body[name] {
        case nil: return nil
        case .int(let value)? where value >= 0: return UInt64(value)
        case .uint(let value)?: return value
        default: throw .invalidArgument("\"\(name)\" must be a non-negative integer")
        }
    }

    /// A query parameter as a number within `range`; `default` when absent.
    func queryNumber(_ name: String, default value: UInt64, range: ClosedRange<UInt64>) throws(HTTPProblem) -> UInt64 {
        guard let text = query[name], !text.isEmpty else { return value }
        guard let number = UInt64(text), range.contains(number) else {
            throw .invalidArgument("\(name) must be a number from \(range.lowerBound) to \(range.upperBound)")
        }
        return number
    }

    /// The `cursor` query parameter: base64url of the binary cursor.
    func queryCursor() throws(HTTPProblem) -> ByteBuffer? {
        guard let text = query["cursor"], !text.isEmpty else { return nil }
        guard let bytes = Base64URL.decode(text) else { throw .invalidArgument("cursor is not base64url") }
        return ByteBuffer(bytes: bytes)
    }
}

/// base64url (RFC 4648 section 5) without padding, and lenient decoding of either alphabet with or without it.
enum Base64URL {
    static func encode(_ bytes: some Collection<UInt8>) -> String {
        Data(bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    static func decode(_ text: String) -> [UInt8]? {
        var standard = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        standard += String(repeating: "=", count: (4 - standard.count % 4) % 4)
        return Data(base64Encoded: standard).map { [UInt8]($0) }
    }
}
