import FoyerJSON

/// The `json` target: the HTTP edge's readers, `JSONValue.parse` (request bodies, document values) and
/// `RFC3339.parseMilliseconds` (times in queries and bodies).
///
/// Invariants: a parsed JSON value's bytes parse to the same value and write the same bytes again; a parsed time
/// written back as RFC 3339 parses to the same milliseconds. "The same value" compares numbers by value, not by
/// case: a whole `Double` past `Int64`'s exact range, say `24775182446744077.5`, is written as an integer and
/// comes back as `.int` (JSON has one number type; the bytes are the contract).
enum JSONFuzzing {
    static let target = FuzzTarget(
        name: "json",
        summary: "HTTP edge JSON parser (JSONValue.parse) and RFC 3339 times (RFC3339.parseMilliseconds)",
        run: { run(Array($0)) },
        seeds: { FuzzSeeds.jsonTexts }
    )

    static func run(_ bytes: [UInt8]) {
        if let value = JSONValue.parse(bytes) {
            let written = value.bytes
            guard let again = JSONValue.parse(written) else {
                FuzzTarget.violated("json", "a value's own bytes do not parse")
            }
            guard again.bytes == written else {
                FuzzTarget.violated("json", "a value's own bytes parse to a value that writes other bytes")
            }
            guard sameValue(value, again) else {
                FuzzTarget.violated("json", "a value's own bytes parse to another value")
            }
        }
        let text = String(decoding: bytes, as: UTF8.self)
        if let milliseconds = RFC3339.parseMilliseconds(text) {
            let written = RFC3339.milliseconds(milliseconds)
            guard RFC3339.parseMilliseconds(written) == milliseconds else {
                FuzzTarget.violated("json", "\(text) is \(milliseconds) ms, written \(written), which parses otherwise")
            }
        }
    }

    /// Whether `a` and `b` are the same JSON value, numbers compared by value.
    static func sameValue(_ a: JSONValue, _ b: JSONValue) -> Bool {
        switch (a, b) {
        case (.array(let x), .array(let y)):
            return x.count == y.count && zip(x, y).allSatisfy { sameValue($0, $1) }
        case (.object(let x), .object(let y)):
            return x.count == y.count && x.allSatisfy { key, value in y[key].map { sameValue(value, $0) } ?? false }
        default:
            if let x = number(a), let y = number(b) { return x == y }
            return a == b
        }
    }

    /// A number's value as a `Double` (exact for the integers a `Double` written as an integer comes back as).
    static func number(_ value: JSONValue) -> Double? {
        switch value {
        case .int(let x): Double(x)
        case .uint(let x): Double(x)
        case .double(let x): x
        default: nil
        }
    }
}
