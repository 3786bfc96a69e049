import Foundation

extension Duration {
    /// The duration in seconds, as `TimeInterval`.
    var timeInterval: TimeInterval {
        let (seconds, attoseconds) = components
        return TimeInterval(seconds) + TimeInterval(attoseconds) / 1e18
    }

    /// The duration in whole milliseconds (for retry-after hints), at least 1 when positive.
    var wholeMilliseconds: UInt32 {
        let milliseconds = (timeInterval * 1000).rounded(.up)
        return UInt32(clamping: Int64(max(0, min(milliseconds, Double(UInt32.max)))))
    }
}

extension Date {
    /// Milliseconds since the Unix epoch, for the wire.
    var wireMilliseconds: UInt64 {
        UInt64(max(0, (timeIntervalSince1970 * 1000).rounded(.down)))
    }

    /// This date rounded down to the millisecond, so that what is stored equals what goes on the wire (activity
    /// times are paging cursors).
    var atWirePrecision: Date { Date(wireMilliseconds: wireMilliseconds) }

    init(wireMilliseconds: UInt64) {
        self.init(timeIntervalSince1970: TimeInterval(wireMilliseconds) / 1000)
    }

    /// Whole seconds since the Unix epoch (JWT NumericDate, rounded down).
    var epochSeconds: Int64 {
        Int64((timeIntervalSince1970).rounded(.down))
    }

    func adding(_ duration: Duration) -> Date {
        addingTimeInterval(duration.timeInterval)
    }

    func subtracting(_ duration: Duration) -> Date {
        addingTimeInterval(-duration.timeInterval)
    }
}
