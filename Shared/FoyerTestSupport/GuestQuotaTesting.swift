// Helpers first needed by guest-quota's tests (sign-up buckets refill with time), usable by any test that needs
// time to pass without sleeping.

public import Foundation
import Synchronization

/// A clock that moves only when told: inject `clock.now` where a component takes `now: @Sendable () -> Date`.
public final class TestClock: Sendable {
    private let current: Mutex<Date>

    /// Starts at `start` (default 2023-11-14T22:13:20Z, a round number of seconds).
    public init(_ start: Date = Date(timeIntervalSince1970: 1_700_000_000)) {
        self.current = Mutex(start)
    }

    /// The current time.
    public var date: Date { current.withLock { $0 } }

    /// The clock as the closure components take.
    public var now: @Sendable () -> Date { { self.date } }

    /// Moves the clock forward (or back, with a negative interval).
    public func advance(by seconds: TimeInterval) {
        current.withLock { $0 = $0.addingTimeInterval(seconds) }
    }
}

/// A fresh uid in identity's shape (22 characters of base64url), for tests of the services that take uids.
public func testUID() -> String {
    let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
    return String((0..<22).map { _ in alphabet.randomElement()! })
}
