import Foundation

/// The HTTP edge's floor on this machine: `wrk` (keep-alive connections, a C client that costs the server nothing
/// to parse) against the gateway's HTTP listener, on a path that does no work (`/healthz`) and on one authenticated
/// document read, so the rows through `FoyerClient` over HTTP can be read against what the listener itself allows.
enum WrkFloor {
    /// One `wrk` run: requests a second and the latency percentiles it printed, or nil when `wrk` is missing
    /// (`make deps` installs it) or printed no rate.
    static func run(
        url: String,
        headers: [String: String] = [:],
        connections: Int,
        seconds: Int
    ) throws -> (perSecond: Double, p50Milliseconds: Double?, p99Milliseconds: Double?, errors: Int)? {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        var arguments = ["wrk", "--latency", "-t2", "-c\(max(connections, 2))", "-d\(max(seconds, 1))s"]
        for (name, value) in headers.sorted(by: { $0.key < $1.key }) { arguments += ["-H", "\(name): \(value)"] }
        process.arguments = arguments + [url]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard process.terminationStatus == 0, let rate = number(after: "Requests/sec:", in: text) else { return nil }
        let errors = Int(number(after: "Non-2xx or 3xx responses:", in: text) ?? 0)
        return (rate, milliseconds(after: "50%", in: text), milliseconds(after: "99%", in: text), errors)
    }

    private static func number(after label: String, in text: String) -> Double? {
        guard let range = text.range(of: label) else { return nil }
        let rest = text[range.upperBound...].drop { $0 == " " }
        return Double(rest.prefix { $0.isNumber || $0 == "." })
    }

    /// A latency line of `--latency` (`50%  1.23ms`), in milliseconds.
    private static func milliseconds(after label: String, in text: String) -> Double? {
        guard
            let line = text.split(separator: "\n").first(where: {
                $0.trimmingCharacters(in: .whitespaces).hasPrefix(label)
            })
        else { return nil }
        let value = line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first.map(String.init) ?? ""
        let units: [(String, Double)] = [("us", 0.001), ("ms", 1), ("s", 1_000)]
        for (unit, scale) in units where value.hasSuffix(unit) {
            return Double(value.dropLast(unit.count)).map { $0 * scale }
        }
        return nil
    }
}
