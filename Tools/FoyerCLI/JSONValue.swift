import Foundation

/// A JSON value, written in the order its object keys were given (so the output reads well), on one line.
enum JSONValue: Sendable, Equatable {
    case string(String)
    case int(Int64)
    case uint(UInt64)
    case bool(Bool)
    case null
    case array([JSONValue])
    case object([(String, JSONValue)])
    /// JSON text that is already valid (passed through as it is).
    case raw(String)

    static func == (lhs: JSONValue, rhs: JSONValue) -> Bool { lhs.text == rhs.text }

    /// The compact JSON text.
    var text: String {
        var output = ""
        write(to: &output)
        return output
    }

    private func write(to output: inout String) {
        switch self {
        case .string(let value): Self.writeString(value, to: &output)
        case .int(let value): output += String(value)
        case .uint(let value): output += String(value)
        case .bool(let value): output += value ? "true" : "false"
        case .null: output += "null"
        case .raw(let text): output += text
        case .array(let values):
            output += "["
            for (index, value) in values.enumerated() {
                if index > 0 { output += "," }
                value.write(to: &output)
            }
            output += "]"
        case .object(let members):
            output += "{"
            for (index, (key, value)) in members.enumerated() {
                if index > 0 { output += "," }
                Self.writeString(key, to: &output)
                output += ":"
                value.write(to: &output)
            }
            output += "}"
        }
    }

    private static func writeString(_ value: String, to output: inout String) {
        output += "\""
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"": output += "\\\""
            case "\\": output += "\\\\"
            case "\n": output += "\\n"
            case "\r": output += "\\r"
            case "\t": output += "\\t"
            case _ where scalar.value < 0x20 || scalar.value == 0x7F:
                let hex = String(scalar.value, radix: 16)
                output += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: output.unicodeScalars.append(scalar)
            }
        }
        output += "\""
    }
}

extension JSONValue {
    /// `.string` or `.null`.
    static func optional(_ value: String?) -> JSONValue { value.map(JSONValue.string) ?? .null }

    /// An ISO 8601 time in UTC with milliseconds.
    static func time(_ date: Date) -> JSONValue {
        .string(Date.ISO8601FormatStyle(includingFractionalSeconds: true).format(date))
    }

    static func time(milliseconds: UInt64) -> JSONValue {
        time(Date(timeIntervalSince1970: TimeInterval(milliseconds) / 1000))
    }

    static func time(microseconds: Int64) -> JSONValue {
        time(Date(timeIntervalSince1970: TimeInterval(microseconds) / 1_000_000))
    }

    /// Appends members to an object (other values are left as they are).
    func merging(_ extra: [(String, JSONValue)]) -> JSONValue {
        guard case .object(let members) = self else { return self }
        return .object(members + extra)
    }
}
