import Foundation

/// A database engine the end-to-end rows run on; each runs them once, on fresh databases, and the report prints
/// them side by side.
enum BenchEngine: String, Codable, CaseIterable, Sendable {
    case sqlite
    case postgres

    /// The engines of `--engines`: comma-separated names, each at most once, at least one; printed in the order of
    /// ``allCases`` (SQLite first, so the ratio is always PostgreSQL's over SQLite's).
    static func parseList(_ text: String) throws -> [BenchEngine] {
        var chosen: Set<BenchEngine> = []
        for name in text.split(separator: ",", omittingEmptySubsequences: false) {
            let trimmed = name.trimmingCharacters(in: .whitespaces).lowercased()
            guard let engine = BenchEngine(rawValue: trimmed) else {
                throw BenchFailure("--engines: unknown engine \"\(trimmed)\" (choose from sqlite, postgres)")
            }
            guard chosen.insert(engine).inserted else {
                throw BenchFailure("--engines: \(engine.rawValue) is named twice")
            }
        }
        return allCases.filter { chosen.contains($0) }
    }

    /// The name in tables and progress lines.
    var title: String {
        switch self {
        case .sqlite: "SQLite"
        case .postgres: "PostgreSQL"
        }
    }

    /// The name in column headings.
    var short: String {
        switch self {
        case .sqlite: "sqlite"
        case .postgres: "pg"
        }
    }
}
