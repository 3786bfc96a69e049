import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One HTTP/1.1 exchange with a metrics endpoint on 127.0.0.1, over a plain socket: the endpoint answers one
/// request per connection and closes, so the answer is everything read until the end of the stream.
public struct MetricsScrape: Sendable {
    /// The status code of the answer's status line.
    public var status: Int
    /// The answer's body.
    public var body: String

    /// Sends `method target` to 127.0.0.1:`port` and reads the answer (at most 4 MiB, each read waits at most 10 s).
    /// `padding` adds a header of that many bytes (to pass the endpoint's limit on a request's size).
    public static func exchange(
        port: Int,
        method: String = "GET",
        target: String = "/metrics",
        padding: Int = 0
    ) throws -> MetricsScrape {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw ScrapeError("socket() failed") }
        defer { close(descriptor) }
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else { throw ScrapeError("connect to 127.0.0.1:\(port) failed") }
        let extra = padding > 0 ? "X-Padding: \(String(repeating: "a", count: padding))\r\n" : ""
        let request = Array(
            "\(method) \(target) HTTP/1.1\r\nHost: 127.0.0.1\r\n\(extra)Content-Length: 0\r\n\r\n".utf8
        )
        // A refused request may be closed before it is all sent: what the endpoint answers (nothing) tells then.
        _ = send(descriptor, request, request.count, Int32(MSG_NOSIGNAL))
        var answer: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while answer.count < 4 << 20 {
            let count = recv(descriptor, &chunk, chunk.count, 0)
            guard count > 0 else {
                guard count == 0 || errno == ECONNRESET else { throw ScrapeError("recv failed or timed out") }
                break
            }
            answer += chunk[..<count]
        }
        let text = String(decoding: answer, as: UTF8.self)
        guard let split = text.range(of: "\r\n\r\n"), let statusLine = text.split(separator: "\r\n").first else {
            throw ScrapeError("no HTTP answer: \(text.prefix(200))")
        }
        let fields = statusLine.split(separator: " ")
        guard fields.count >= 2, let status = Int(fields[1]) else { throw ScrapeError("bad status line \(statusLine)") }
        return MetricsScrape(status: status, body: String(text[split.upperBound...]))
    }

    /// The value of the sample `name{labels}` (labels exactly as rendered, in order; "" for none), or nil.
    public func sample(_ name: String, _ labels: String = "") -> Double? {
        let key = labels.isEmpty ? name : "\(name){\(labels)}"
        for line in body.split(separator: "\n") where line.hasPrefix(key + " ") {
            return Double(line.dropFirst(key.count + 1).split(separator: " ").first ?? "")
        }
        return nil
    }

    /// The sum of every sample of `name` whose labels contain each of `labels` (`key="value"` pieces).
    public func total(_ name: String, containing labels: [String]) -> Double {
        body.split(separator: "\n").reduce(0) { sum, line in
            guard line.hasPrefix(name + "{") || line.hasPrefix(name + " "),
                labels.allSatisfy({ line.contains($0) }),
                let value = line.split(separator: " ").last.flatMap({ Double($0) })
            else { return sum }
            return sum + value
        }
    }
}

extension MetricsScrape {
    /// The process's calls to other services (`foyer_rpc_client_calls_total`), summed over statuses, by
    /// "upstream/method".
    public var clientCalls: [String: Double] {
        var calls: [String: Double] = [:]
        for line in body.split(separator: "\n") where line.hasPrefix("foyer_rpc_client_calls_total{") {
            guard let upstream = Self.label("upstream", line), let method = Self.label("method", line),
                let value = line.split(separator: " ").last.flatMap({ Double($0) })
            else { continue }
            calls["\(upstream)/\(method)", default: 0] += value
        }
        return calls
    }

    /// The calls `operation` made to other services, by "upstream/method" (only those it made), as the metrics
    /// endpoint on 127.0.0.1:`port` counts them before and after.
    public static func clientCalls(
        port: Int,
        around operation: () async throws -> Void
    ) async throws -> [String: Double] {
        let before = try exchange(port: port).clientCalls
        try await operation()
        return try exchange(port: port).clientCalls.reduce(into: [:]) { made, entry in
            let delta = entry.value - (before[entry.key] ?? 0)
            if delta > 0 { made[entry.key] = delta }
        }
    }

    private static func label(_ name: String, _ line: Substring) -> String? {
        guard let start = line.range(of: "\(name)=\"") else { return nil }
        let rest = line[start.upperBound...]
        return rest.firstIndex(of: "\"").map { String(rest[..<$0]) }
    }
}

public struct ScrapeError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
