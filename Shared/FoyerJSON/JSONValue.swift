import Foundation

/// A JSON value: what the gateway's HTTP edge reads from request bodies and writes as answers, and what
/// `FoyerClient`'s HTTP transport reads back (so both sides write a document's JSON value as the same bytes).
///
/// Integers stay integers (`Int64`, or `UInt64` past its range); other numbers are `Double`. Objects keep no
/// order; answers are written with sorted keys, so the same answer is the same bytes.
public enum JSONValue: Sendable, Hashable, Codable {
    case null
    case bool(Bool)
    case int(Int64)
    case uint(UInt64)
    case double(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Int64.self) {
            self = .int(value)
        } else if let value = try? container.decode(UInt64.self) {
            self = .uint(value)
        } else if let value = try? container.decode(Double.self) {
            self = .double(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([JSONValue].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: JSONValue].self))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let value): try container.encode(value)
        case .int(let value): try container.encode(value)
        case .uint(let value): try container.encode(value)
        case .double(let value):
            // A whole number is written as an integer, which is how it parses back: the written bytes are then a
            // fixed point (`1e+19` would come back as `.uint` and be written `10000000000000000000`).
            if value.rounded(.towardZero) == value, value >= -0x1p63, value < 0x1p63 {
                try container.encode(Int64(value))
            } else if value.rounded(.towardZero) == value, value >= 0, value < 0x1p64 {
                try container.encode(UInt64(value))
            } else {
                try container.encode(value)
            }
        case .string(let value): try container.encode(value)
        case .array(let value): try container.encode(value)
        case .object(let value): try container.encode(value)
        }
    }

    /// Parses `bytes` as one JSON value; nil if they are not JSON.
    public static func parse(_ bytes: some Collection<UInt8>) -> JSONValue? {
        try? JSONDecoder().decode(JSONValue.self, from: Data(bytes))
    }

    /// The compact UTF-8 text of the value, keys sorted.
    public var bytes: [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // Encoding a JSONValue cannot fail: every case is a valid JSON value (non-finite doubles never parse).
        return (try? [UInt8](encoder.encode(self))) ?? Array("null".utf8)
    }
}

extension JSONValue: ExpressibleByStringLiteral, ExpressibleByBooleanLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByDictionaryLiteral, ExpressibleByArrayLiteral
{
    public init(stringLiteral value: String) { self = .string(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(integerLiteral value: Int64) { self = .int(value) }
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self = .object(Dictionary(elements) { first, _ in first })
    }
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }

    /// A count or version as JSON (beyond `Int64.max` only in theory).
    public init(_ value: UInt64) { self = value <= UInt64(Int64.max) ? .int(Int64(value)) : .uint(value) }
    /// An optional string: `null` when absent (dropped from objects by ``compacted``).
    public init(_ value: String?) { self = value.map(JSONValue.string) ?? .null }

    /// The object without its `null` members: optional fields are left out rather than written as null.
    public var compacted: JSONValue {
        guard case .object(let members) = self else { return self }
        return .object(members.filter { $0.value != .null })
    }
}
