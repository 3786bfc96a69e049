public import Logging

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Loggers for tests: quiet by default (`warning`), louder with `FOYER_TEST_LOG_LEVEL=debug`.
public enum TestLogging {
    public static func logger(_ label: String) -> Logger {
        var logger = Logger(label: label) { StreamLogHandler.standardError(label: $0) }
        let configured = getenv("FOYER_TEST_LOG_LEVEL").map { String(cString: $0) }
        logger.logLevel = configured.flatMap(Logger.Level.init(rawValue:)) ?? .warning
        return logger
    }
}
