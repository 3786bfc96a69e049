import Foundation
public import Logging

/// How log lines look: `text` (logfmt: `key=value` pairs, easy to read and to grep) or `json` (one object a
/// line, for log shippers).
public enum LogFormat: String, Sendable {
    case text
    case json
}

/// One structured line per log event on standard error: time, level, label, message, then the metadata.
public struct StructuredLogHandler: LogHandler {
    public var metadata: Logger.Metadata = [:]
    public var logLevel: Logger.Level
    private let label: String
    private let format: LogFormat

    public init(label: String, level: Logger.Level, format: LogFormat) {
        self.label = label
        self.logLevel = level
        self.format = format
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        var fields: [(String, String)] = [
            ("time", Self.timestamp()), ("level", "\(event.level)"), ("logger", label), ("message", "\(event.message)"),
        ]
        let merged = metadata.merging(event.metadata ?? [:]) { _, new in new }
        for key in merged.keys.sorted() { fields.append((key, "\(merged[key]!)")) }
        if let error = event.error { fields.append(("error", "\(error)")) }
        let text = format == .json ? Self.json(fields) : Self.logfmt(fields)
        FileHandle.standardError.write(Data((text + "\n").utf8))
    }

    private static func timestamp() -> String {
        Date().formatted(
            .iso8601.year().month().day().time(includingFractionalSeconds: true).timeZone(separator: .omitted)
        )
    }

    private static func logfmt(_ fields: [(String, String)]) -> String {
        fields.map { key, value in
            let needsQuotes = value.isEmpty || value.contains { $0 == " " || $0 == "=" || $0 == "\"" }
            let escaped = value.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(
                of: "\"",
                with: "\\\""
            )
            .replacingOccurrences(of: "\n", with: "\\n")
            return "\(key)=\(needsQuotes ? "\"\(escaped)\"" : escaped)"
        }.joined(separator: " ")
    }

    private static func json(_ fields: [(String, String)]) -> String {
        let object = Dictionary(fields, uniquingKeysWith: { _, last in last })
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data("{}".utf8)
        return String(decoding: data, as: UTF8.self)
    }
}
