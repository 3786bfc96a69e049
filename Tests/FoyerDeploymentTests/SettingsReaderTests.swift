import FoyerServiceKit
import Logging
import Testing

/// The one settings path of the executables: flag, else environment, else default, and one error text.
@Suite("Settings reader")
struct SettingsReaderTests {
    static let port = Setting<Int>.int("--port", "FOYER_PORT", in: 0...65535)

    /// What the error that `body` throws says (a `ValidationError` describes itself by its message); nil if none.
    static func message(_ body: () throws -> Void) -> String? {
        do {
            try body()
            return nil
        } catch {
            return "\(error)"
        }
    }

    @Test("a flag wins over the environment")
    func flagWins() throws {
        let settings = SettingsReader(environment: ["FOYER_PORT": "7000", "FOYER_HOST": "10.0.0.1"])
        #expect(try settings.value(7001, Self.port) == 7001)
        #expect(try settings.value("192.0.2.1", .text("--host", "FOYER_HOST")) == "192.0.2.1")
        #expect(
            try settings.value(parsing: "json", .choice("--log-format", "FOYER_LOG_FORMAT", of: [])) == LogFormat.json
        )
    }

    @Test("the environment wins over the default, which applies when neither is set")
    func environmentWinsOverDefault() throws {
        let settings = SettingsReader(environment: ["FOYER_PORT": "7000"])
        #expect(try settings.value(nil, Self.port) ?? 1 == 7000)
        #expect(try SettingsReader(environment: [:]).value(nil, Self.port) ?? 1 == 1)
    }

    @Test("an empty variable counts as unset")
    func emptyIsUnset() throws {
        let settings = SettingsReader(environment: ["FOYER_PORT": "", "FOYER_HOST": "", "FOYER_LOCAL_MODE": ""])
        #expect(try settings.value(nil, Self.port) == nil)
        #expect(try settings.value(nil, .text("--host", "FOYER_HOST")) == nil)
        #expect(settings.text("FOYER_HOST") == nil)
        #expect(!settings.isOn(false, "FOYER_LOCAL_MODE"))
    }

    @Test("a bad value names the flag, the variable, what is expected and the value")
    func badValue() {
        let settings = SettingsReader(environment: ["FOYER_PORT": "many", "FOYER_APPLE_NONCE_REQUIRED": "yes"])
        #expect(
            Self.message { _ = try settings.value(nil, Self.port) }
                == "--port / FOYER_PORT must be a whole number from 0 to 65535, not 'many'"
        )
        #expect(
            Self.message {
                _ = try settings.value(nil, .bool("--apple-nonce-required", "FOYER_APPLE_NONCE_REQUIRED"))
            } == "--apple-nonce-required / FOYER_APPLE_NONCE_REQUIRED must be true or false, not 'yes'"
        )
        #expect(
            Self.message {
                _ =
                    try settings.value(
                        parsing: "loud",
                        .choice("--log-level", "FOYER_LOG_LEVEL", of: ["info", "debug"])
                    )
                    as Logger.Level?
            } == "--log-level / FOYER_LOG_LEVEL must be info or debug, not 'loud'"
        )
    }

    @Test("a value out of range is refused, from a flag as from the environment")
    func outOfRange() {
        let positive = Setting<Int>.positive("--max-connections", "FOYER_MAX_CONNECTIONS")
        #expect(
            Self.message { _ = try SettingsReader(environment: [:]).value(0, positive) }
                == "--max-connections / FOYER_MAX_CONNECTIONS must be a whole number of at least 1, not '0'"
        )
        #expect(
            Self.message { _ = try SettingsReader(environment: ["FOYER_PORT": "65536"]).value(nil, Self.port) }
                == "--port / FOYER_PORT must be a whole number from 0 to 65535, not '65536'"
        )
        #expect(
            Self.message { _ = try SettingsReader(environment: [:]).value(-1, .nonNegative("--drain-seconds", "X")) }
                == "--drain-seconds / X must be a whole number of at least 0, not '-1'"
        )
    }

    @Test("a setting only the environment gives is named by its variable alone")
    func environmentOnly() {
        let settings = SettingsReader(environment: ["FOYER_TEST_SCRYPT_LOG_N": "9"])
        #expect(
            Self.message { _ = try settings.value(nil, Setting<Int>.int("", "FOYER_TEST_SCRYPT_LOG_N", in: 10...17)) }
                == "FOYER_TEST_SCRYPT_LOG_N must be a whole number from 10 to 17, not '9'"
        )
    }

    @Test("lists drop blanks; switches are on with the flag or the variable set to 1")
    func listsAndSwitches() throws {
        let settings = SettingsReader(environment: ["FOYER_GOOGLE_AUDIENCES": " a, ,b ,", "FOYER_LOCAL_MODE": "1"])
        #expect(try settings.value(parsing: nil, .list("--google-audiences", "FOYER_GOOGLE_AUDIENCES")) == ["a", "b"])
        #expect(settings.isOn(false, "FOYER_LOCAL_MODE"))
        #expect(settings.isOn(true, "FOYER_LOAD_TEST_SOURCES"))
        #expect(!settings.isOn(false, "FOYER_LOAD_TEST_SOURCES"))
        #expect(!SettingsReader(environment: ["FOYER_LOCAL_MODE": "true"]).isOn(false, "FOYER_LOCAL_MODE"))
    }

    @Test("upstream addresses: HOST:PORT from the flag or variable, else the service's loopback address")
    func upstreamAddresses() throws {
        #expect(UpstreamService.guestQuota.setting.flag == "--guest-quota")
        #expect(UpstreamService.guestQuota.setting.variable == "FOYER_GUEST_QUOTA_ADDRESS")
        #expect(UpstreamService.cleanup.defaultAddress == "127.0.0.1:7404")
        let settings = SettingsReader(environment: ["FOYER_USER_DATA_ADDRESS": "user-data"])
        #expect(try settings.value("[::1]:7403", UpstreamService.userData.setting) == "[::1]:7403")
        #expect(
            Self.message { _ = try settings.value(nil, UpstreamService.userData.setting) }
                == "--user-data / FOYER_USER_DATA_ADDRESS must be HOST:PORT, not 'user-data'"
        )
        #expect(Self.message { _ = try settings.value("host:0", UpstreamService.identity.setting) } != nil)
    }

    @Test("the common options go through the reader: a bad database schema names its flag and variable")
    func databaseSchema() throws {
        let postgres = ["--database", "postgres://foyer@127.0.0.1/foyer"]
        let bad = try ServiceOptions.parse(postgres + ["--database-schema", "user-data"])
        #expect(
            Self.message { _ = try bad.resolvedDatabase(service: "user-data") }
                == "--database-schema / FOYER_DATABASE_SCHEMA must be letters, digits and underscores, not 'user-data'"
        )
        #expect(try ServiceOptions.parse(postgres).resolvedDatabase(service: "user-data").postgresSchema == "user_data")
    }

    @Test("the database's pool size and SQLite's group commit: defaults, flags, and zero refused")
    func databaseLimits() throws {
        let defaults = try ServiceOptions.parse([]).resolvedDatabase(service: "identity").limits
        #expect(defaults.postgresPoolSize == 10 && defaults.sqliteGroupCommitMaxTransactions == 32)
        let chosen = try ServiceOptions.parse(["--database-pool-size", "40", "--sqlite-group-commit", "1"])
            .resolvedDatabase(service: "identity").limits
        #expect(chosen.postgresPoolSize == 40 && chosen.sqliteGroupCommitMaxTransactions == 1)
        let zero = try ServiceOptions.parse(["--sqlite-group-commit", "0"])
        #expect(
            Self.message { _ = try zero.resolvedDatabase(service: "identity") }?.contains("--sqlite-group-commit")
                == true
        )
    }
}
