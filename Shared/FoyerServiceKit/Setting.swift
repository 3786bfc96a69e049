import Foundation

/// One setting of an executable: the flag that sets it, the `FOYER_…` environment variable that sets it when the
/// flag is absent, and what a valid value is. ``SettingsReader`` resolves it: flag, else environment, else the
/// caller's default. The factories below cover the kinds of value the executables take.
public struct Setting<Value: Sendable>: Sendable {
    /// The flag as typed, with its dashes: `--port`; empty for a setting only the environment gives.
    public let flag: String
    /// The environment variable: `FOYER_PORT`.
    public let variable: String
    /// What a valid value is, for the error text: "a whole number from 0 to 65535".
    public let expectation: String
    /// Reads the value from text (the environment's, or a text flag's); nil if it is not one.
    let parse: @Sendable (String) -> Value?
    /// Whether a parsed value is acceptable (a range, for numbers).
    let isValid: @Sendable (Value) -> Bool

    public init(
        flag: String,
        variable: String,
        expectation: String,
        parse: @escaping @Sendable (String) -> Value?,
        isValid: @escaping @Sendable (Value) -> Bool = { _ in true }
    ) {
        self.flag = flag
        self.variable = variable
        self.expectation = expectation
        self.parse = parse
        self.isValid = isValid
    }
}

extension Setting where Value == Int {
    /// A whole number in `range`.
    public static func int(_ flag: String, _ variable: String, in range: ClosedRange<Int>) -> Setting {
        let expectation =
            range.upperBound == .max
            ? "a whole number of at least \(range.lowerBound)"
            : "a whole number from \(range.lowerBound) to \(range.upperBound)"
        return Setting(
            flag: flag,
            variable: variable,
            expectation: expectation,
            parse: { Int($0) },
            isValid: { range.contains($0) }
        )
    }

    /// A whole number of at least 1: counts, limits, lifetimes.
    public static func positive(_ flag: String, _ variable: String) -> Setting {
        int(flag, variable, in: 1...Int.max)
    }

    /// A whole number of at least 0.
    public static func nonNegative(_ flag: String, _ variable: String) -> Setting {
        int(flag, variable, in: 0...Int.max)
    }
}

extension Setting where Value == String {
    /// Any text (an empty variable counts as unset).
    public static func text(_ flag: String, _ variable: String) -> Setting {
        Setting(flag: flag, variable: variable, expectation: "text", parse: { $0 })
    }

    /// `HOST:PORT`, an IPv6 host in brackets (`[::1]:7401`), as ``ServiceStartup/parseAddress(_:)`` reads it.
    public static func address(_ flag: String, _ variable: String) -> Setting {
        Setting(
            flag: flag,
            variable: variable,
            expectation: "HOST:PORT",
            parse: { $0 },
            isValid: { (try? ServiceStartup.parseAddress($0)) != nil }
        )
    }
}

extension Setting where Value == Bool {
    /// `true` or `false`.
    public static func bool(_ flag: String, _ variable: String) -> Setting {
        Setting(flag: flag, variable: variable, expectation: "true or false", parse: { Bool($0) })
    }
}

extension Setting where Value == [String] {
    /// A comma-separated list; blanks around items and empty items are dropped.
    public static func list(_ flag: String, _ variable: String) -> Setting {
        Setting(
            flag: flag,
            variable: variable,
            expectation: "a comma-separated list",
            parse: { text in
                text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
            }
        )
    }
}

extension Setting where Value: RawRepresentable & Sendable, Value.RawValue == String {
    /// One of the names in `names` (`Value(rawValue:)` decides; `names` is for the error text).
    public static func choice(_ flag: String, _ variable: String, of names: [String]) -> Setting {
        let listed = names.dropLast().joined(separator: ", ") + (names.count > 1 ? " or " : "") + (names.last ?? "")
        return Setting(flag: flag, variable: variable, expectation: listed, parse: { Value(rawValue: $0) })
    }
}
