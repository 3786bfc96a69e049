public import Foundation

/// The clock an executable gives its service: the system clock.
///
/// Debug builds also read `FOYER_TEST_CLOCK_FILE`: the file holds a number of seconds added to the system clock,
/// read again at every reading, so integration tests of the real executables can move time forward (a guest's TTL,
/// a token's expiry) by rewriting it. Release builds refuse to start with the variable set, so a deployment can
/// never run on a shifted clock by accident.
public enum ServiceClock {
    /// The clock for this process.
    ///
    /// - Throws: ``ServiceKitError`` if `FOYER_TEST_CLOCK_FILE` is set in a release build.
    public static func make() throws -> @Sendable () -> Date {
        guard let path = ServiceOptions.environment("FOYER_TEST_CLOCK_FILE") else { return { Date() } }
        #if DEBUG
        return { Date().addingTimeInterval(offset(path)) }
        #else
        throw ServiceKitError("FOYER_TEST_CLOCK_FILE (\(path)) is for tests of debug builds only; unset it")
        #endif
    }

    /// The seconds in the file; 0 if it is missing or holds no number.
    static func offset(_ path: String) -> TimeInterval {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return 0 }
        return TimeInterval(text.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
    }
}
