public import FoyerClient

/// Durations as the load command takes them: a number and a unit, `500ms`, `30s`, `2m`, `1h`, or several in a row
/// (`1m30s`).
public enum LoadDuration {
    /// Parses `text`; refuses a missing unit, an unknown unit, and zero.
    public static func parse(_ text: String) throws(FoyerError) -> Duration {
        var total = Duration.zero
        var rest = Substring(text.trimmingCharacters(in: .whitespaces))
        guard !rest.isEmpty else { throw .invalidInput("an empty duration: give one such as 30s, 2m or 500ms") }
        while !rest.isEmpty {
            let digits = rest.prefix { $0.isASCII && $0.isNumber }
            let unit = rest.dropFirst(digits.count).prefix { $0.isLetter }
            guard let amount = Int64(digits), amount <= 1_000_000_000 else {
                throw .invalidInput("'\(text)' is not a duration such as 30s, 2m or 500ms")
            }
            guard let scale = Self.unit(unit) else {
                throw .invalidInput("'\(text)' needs a unit after \(digits): ms, s, m or h")
            }
            total += scale * amount
            rest = rest.dropFirst(digits.count + unit.count)
        }
        guard total > .zero else { throw .invalidInput("the duration '\(text)' must be more than zero") }
        return total
    }

    private static func unit(_ text: Substring) -> Duration? {
        switch text {
        case "ms": .milliseconds(1)
        case "s": .seconds(1)
        case "m": .seconds(60)
        case "h": .seconds(3600)
        default: nil
        }
    }

    /// `500ms`, `30s`, `2m`, `1m30s`: the shortest text `parse` reads back as `duration` (to the millisecond).
    public static func text(_ duration: Duration) -> String {
        let milliseconds = duration.wholeMilliseconds
        guard milliseconds % 1000 == 0, milliseconds > 0 else { return "\(milliseconds)ms" }
        var seconds = milliseconds / 1000
        var text = ""
        for (unit, size) in [("h", Int64(3600)), ("m", 60)] where seconds >= size {
            text += "\(seconds / size)\(unit)"
            seconds %= size
        }
        return seconds > 0 || text.isEmpty ? text + "\(seconds)s" : text
    }
}

extension Duration {
    /// Whole milliseconds, rounded down.
    var wholeMilliseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1000 + attoseconds / 1_000_000_000_000_000
    }

    /// Seconds as a floating-point number.
    var secondsValue: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }

    /// Whole nanoseconds, at least 1 (a latency of zero cannot be recorded).
    var recordableNanoseconds: UInt64 {
        let (seconds, attoseconds) = components
        return UInt64(max(1, seconds * 1_000_000_000 + attoseconds / 1_000_000_000))
    }
}
