/// Times as the HTTP API writes them: RFC 3339 in UTC with milliseconds, `2026-11-24T12:00:00.000Z`; the gateway
/// writes them, `FoyerClient`'s HTTP transport reads them back.
public enum RFC3339 {
    public static func milliseconds(_ milliseconds: UInt64) -> String {
        format(milliseconds: Int64(clamping: milliseconds))
    }

    public static func microseconds(_ microseconds: Int64) -> String {
        format(milliseconds: microseconds >= 0 ? microseconds / 1000 : (microseconds - 999) / 1000)
    }

    /// Milliseconds since 1970 of `YYYY-MM-DDTHH:MM:SS[.fraction]Z` (a fraction past milliseconds is cut);
    /// nil for any other text or a time before 1970.
    public static func parseMilliseconds(_ text: String) -> UInt64? {
        let bytes = Array(text.utf8)
        guard bytes.count >= 20, bytes.count <= 32, bytes.last == UInt8(ascii: "Z") else { return nil }
        let separators: [(Int, UInt8)] = [(4, 45), (7, 45), (10, UInt8(ascii: "T")), (13, 58), (16, 58)]
        guard separators.allSatisfy({ bytes[$0.0] == $0.1 }) else { return nil }
        func number(_ range: Range<Int>) -> Int64? {
            var value: Int64 = 0
            for byte in bytes[range] {
                guard (48...57).contains(byte) else { return nil }
                value = value * 10 + Int64(byte - 48)
            }
            return value
        }
        guard let year = number(0..<4), let month = number(5..<7), let day = number(8..<10),
            let hour = number(11..<13), let minute = number(14..<16), let second = number(17..<19),
            (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second < 61
        else { return nil }
        var fraction: Int64 = 0
        if bytes.count > 20 {
            guard bytes[19] == UInt8(ascii: "."), bytes.count > 21, let digits = number(20..<(bytes.count - 1)) else {
                return nil
            }
            let count = bytes.count - 21
            fraction = count >= 3 ? number(20..<23) ?? 0 : digits * (count == 1 ? 100 : 10)
        } else if bytes[19] != UInt8(ascii: "Z") {
            return nil
        }
        let milliseconds =
            (days(year: year, month: month, day: day) * 86400 + hour * 3600 + minute * 60 + second)
            * 1000 + fraction
        return milliseconds >= 0 ? UInt64(milliseconds) : nil
    }

    /// Days since 1970-01-01 of a civil date (Howard Hinnant's `days_from_civil`).
    private static func days(year: Int64, month: Int64, day: Int64) -> Int64 {
        let year = month <= 2 ? year - 1 : year
        let era = (year >= 0 ? year : year - 399) / 400
        let yearOfEra = year - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The civil date of a day count (Howard Hinnant's `civil_from_days`), then the time of day.
    private static func format(milliseconds: Int64) -> String {
        let days = milliseconds >= 0 ? milliseconds / 86_400_000 : (milliseconds - 86_399_999) / 86_400_000
        let inDay = milliseconds - days * 86_400_000
        let shifted = days + 719_468
        let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        return "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2))T\(pad(inDay / 3_600_000, 2)):"
            + "\(pad(inDay / 60000 % 60, 2)):\(pad(inDay / 1000 % 60, 2)).\(pad(inDay % 1000, 3))Z"
    }

    private static func pad(_ value: Int64, _ width: Int) -> String {
        let text = String(value)
        return String(repeating: "0", count: max(0, width - text.count)) + text
    }
}
