public import ArgumentParser
public import Foundation

/// The one way the executables read their settings: a flag wins over its `FOYER_…` environment variable, which
/// wins over the default the caller gives (`?? default`); an empty variable counts as unset. A value that is not
/// valid stops the start with one kind of message, naming the flag and the variable:
/// `--port / FOYER_PORT must be a whole number from 0 to 65535, not 'many'`.
public struct SettingsReader: Sendable {
    /// The variables read; the process's environment unless a test gives its own.
    public let environment: [String: String]

    public init(environment: [String: String] = ProcessInfo.processInfo.environment) {
        self.environment = environment
    }

    /// The variable's value; nil when it is unset or empty.
    public func text(_ variable: String) -> String? {
        guard let value = environment[variable], !value.isEmpty else { return nil }
        return value
    }

    /// The value of a flag that the argument parser has already typed (`@Option var port: Int?`), else of the
    /// variable; nil if neither is set.
    /// - Throws: `ValidationError` naming the flag and the variable when the value is not valid.
    public func value<Value>(_ flag: Value?, _ setting: Setting<Value>) throws -> Value? {
        if let flag {
            guard setting.isValid(flag) else { throw Self.invalid(setting, "\(flag)") }
            return flag
        }
        return try environmentValue(setting)
    }

    /// The value of a text flag (`@Option var logLevel: String?`) read by the setting's parser, else of the
    /// variable; nil if neither is set.
    /// - Throws: `ValidationError` naming the flag and the variable when the value is not valid.
    public func value<Value>(parsing flag: String?, _ setting: Setting<Value>) throws -> Value? {
        guard let flag else { return try environmentValue(setting) }
        guard let value = setting.parse(flag), setting.isValid(value) else { throw Self.invalid(setting, flag) }
        return value
    }

    /// An on/off switch (`@Flag var localMode = false`): on if the flag is given or the variable is `1`.
    public func isOn(_ flag: Bool, _ variable: String) -> Bool {
        flag || text(variable) == "1"
    }

    private func environmentValue<Value>(_ setting: Setting<Value>) throws -> Value? {
        guard let text = text(setting.variable) else { return nil }
        guard let value = setting.parse(text), setting.isValid(value) else { throw Self.invalid(setting, text) }
        return value
    }

    /// The one error text for a bad value.
    static func invalid<Value>(_ setting: Setting<Value>, _ text: String) -> ValidationError {
        let name = setting.flag.isEmpty ? setting.variable : "\(setting.flag) / \(setting.variable)"
        return ValidationError("\(name) must be \(setting.expectation), not '\(text)'")
    }
}
