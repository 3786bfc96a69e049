import Foundation
public import Logging

/// How log lines look: `text` (logfmt: `key=value` pairs, easy to read and to grep) or `json` (one object a
/// line, for log shippers).
public enum LogFormat: String, Sendable {
    case text
    case json
}

/// One structured line per log event on standard error: time, level, label, message, then the metadata.
///
/// Values logged may come from clients (a peer's name, an address, an error message quoting a request), so every
/// key and value is escaped: control characters (C0, DEL, C1) and the Unicode line and paragraph separators become
/// `\n`, `\r`, `\t` or `\u00XX`, in both formats, so no value can end a line, forge another one or send a terminal
/// an escape sequence. A metadata key that would shadow one of the line's own fields (`time`, `level`, `logger`,
/// `message`) is written as `metadata.<key>`.
public struct StructuredLogHandler: LogHandler {
    public var metadata: Logger.Metadata = [:]
    public var logLevel: Logger.Level
    private let label: String
    private let format: LogFormat
    private let write: @Sendable (String) -> Void

    /// The fields every line starts with; metadata cannot take their names.
    static let ownFields: Set<String> = ["time", "level", "logger", "message"]

    public init(label: String, level: Logger.Level, format: LogFormat) {
        self.init(label: label, level: level, format: format) { line in
            FileHandle.standardError.write(Data(line.utf8))
        }
    }

    /// - Parameter write: receives each line, newline included.
    init(label: String, level: Logger.Level, format: LogFormat, write: @escaping @Sendable (String) -> Void) {
        self.label = label
        self.logLevel = level
        self.format = format
        self.write = write
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        write(line(for: event, time: Self.timestamp()) + "\n")
    }

    /// The line for `event`, without its newline.
    func line(for event: LogEvent, time: String) -> String {
        var fields: [(String, String)] = [
            ("time", time), ("level", "\(event.level)"), ("logger", label), ("message", "\(event.message)"),
        ]
        let merged = metadata.merging(event.metadata ?? [:]) { _, new in new }
        for key in merged.keys.sorted() {
            fields.append((Self.ownFields.contains(key) ? "metadata.\(key)" : key, "\(merged[key]!)"))
        }
        if let error = event.error { fields.append((merged["error"] == nil ? "error" : "event.error", "\(error)")) }
        return format == .json ? Self.json(fields) : Self.logfmt(fields)
    }

    private static func timestamp() -> String {
        Date().formatted(
            .iso8601.year().month().day().time(includingFractionalSeconds: true).timeZone(separator: .omitted)
        )
    }

    /// `key=value` pairs; a value with a space, `=` or `"` (or an empty one) in double quotes. Keys cannot be quoted
    /// in logfmt, so a space or `=` in a key is escaped as well.
    private static func logfmt(_ fields: [(String, String)]) -> String {
        fields.map { key, value in
            let needsQuotes = value.isEmpty || value.contains { $0 == " " || $0 == "=" || $0 == "\"" }
            let escapedValue = escaped(value)
            let escapedKey = escaped(key, also: [" ", "="])
            return "\(escapedKey)=\(needsQuotes ? "\"\(escapedValue)\"" : escapedValue)"
        }.joined(separator: " ")
    }

    /// One JSON object, keys sorted; a repeated key keeps its first value.
    private static func json(_ fields: [(String, String)]) -> String {
        var seen = Set<String>()
        let unique = fields.filter { seen.insert($0.0).inserted }.sorted { $0.0 < $1.0 }
        return "{" + unique.map { "\"\(escaped($0))\":\"\(escaped($1))\"" }.joined(separator: ",") + "}"
    }

    /// `text` with backslashes, double quotes, control characters (C0, DEL, C1), U+2028 and U+2029, and the scalars
    /// in `also`, escaped as in JSON (`\\`, `\"`, `\n`, `\r`, `\t`, `\u00XX`). The result is valid inside a JSON
    /// string and decodes to `text`.
    static func escaped(_ text: String, also extra: Set<Unicode.Scalar> = []) -> String {
        func needsEscape(_ scalar: Unicode.Scalar) -> Bool {
            scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) || scalar.value == 0x2028
                || scalar.value == 0x2029 || scalar == "\\" || scalar == "\"" || extra.contains(scalar)
        }
        guard text.unicodeScalars.contains(where: needsEscape) else { return text }
        var result = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            guard needsEscape(scalar) else {
                result.append(scalar)
                continue
            }
            let escape: String
            switch scalar {
            case "\\": escape = "\\\\"
            case "\"": escape = "\\\""
            case "\n": escape = "\\n"
            case "\r": escape = "\\r"
            case "\t": escape = "\\t"
            default:
                let hex = String(scalar.value, radix: 16)
                escape = "\\u" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
            }
            result.append(contentsOf: escape.unicodeScalars)
        }
        return String(result)
    }
}
