import Foundation
import FoyerJSON
import Hummingbird
import NIOCore

extension HTTPCall {
    /// The request's inputs: its headers, `parameters` (the path's), the query, and the body read up to
    /// `bodyLimit` bytes (413 past it) within `timeout` (408 past it: a slow client) and parsed as one JSON object; a
    /// body whose `Content-Type` is not `application/json` is refused (415), a request without a body needs none.
    static func read(
        _ request: Request,
        parameters: [String: String],
        bodyLimit: Int,
        timeout: TimeAmount
    ) async throws -> HTTPCall {
        if let length = request.headers[.contentLength].flatMap(Int.init), length > bodyLimit {
            throw HTTPProblem.bodyTooLarge(limit: bodyLimit)
        }
        let body = try await readBody(request.body, limit: bodyLimit, timeout: timeout)
        var call = HTTPCall(
            authorization: request.headers[.authorization],
            idempotencyKeyHeader: request.headers.first { $0.name.canonicalName == "idempotency-key" }?.value,
            pathParameters: parameters
        )
        for (name, value) in request.uri.queryParameters { call.query[String(name)] = String(value) }
        if body.readableBytes > 0 {
            // Only `application/json`: a form or `text/plain` body is one any web page can make a visitor's browser
            // send without a CORS preflight.
            guard isJSON(request.headers[.contentType]) else {
                throw HTTPProblem.unsupportedMediaType(request.headers[.contentType])
            }
            guard case .object(let object)? = JSONValue.parse(body.readableBytesView) else {
                throw HTTPProblem.invalidArgument("the request body must be a JSON object")
            }
            call.body = object
        }
        return call
    }

    /// Whether `contentType` is `application/json`, with or without parameters (`; charset=utf-8`).
    static func isJSON(_ contentType: String?) -> Bool {
        guard let contentType else { return false }
        let mediaType = contentType.split(separator: ";", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        return mediaType.trimmingCharacters(in: .whitespaces).lowercased() == "application/json"
    }

    private static func readBody(_ body: RequestBody, limit: Int, timeout: TimeAmount) async throws -> ByteBuffer {
        let timeout = Duration.nanoseconds(timeout.nanoseconds)
        return try await withThrowingTaskGroup(of: ByteBuffer?.self) { group in
            group.addTask {
                do {
                    return try await body.collect(upTo: limit)
                } catch {
                    throw HTTPProblem.bodyTooLarge(limit: limit)
                }
            }
            group.addTask {
                try await Task.sleep(for: timeout)
                return nil
            }
            defer { group.cancelAll() }
            guard let body = try await group.next() ?? nil else {
                throw HTTPProblem(status: 408, name: "request-timeout", detail: "the request body came too slowly")
            }
            return body
        }
    }
}
