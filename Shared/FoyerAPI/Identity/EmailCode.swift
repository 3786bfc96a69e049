/// The six-digit code a sign-in or link email carries next to its link (or instead of it, as the deployment
/// chooses). It is redeemed with the address it was sent to, on any device: unlike the link, it needs no verifier.
/// Identity keeps only a hash of it, with the link's row, so redeeming either spends both.
public enum EmailCode {
    /// A code is exactly this many ASCII digits, leading zeros included.
    public static let digitCount = 6

    /// Whether `text` is exactly ``digitCount`` ASCII digits (the wire and the HTTP API refuse anything else, so a
    /// malformed code spends no attempt).
    public static func isWellFormed(_ text: some StringProtocol) -> Bool {
        text.utf8.count == digitCount && text.utf8.allSatisfy { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }
    }

    /// The code in an email's text: the first line that is, blanks around it aside, exactly ``digitCount`` digits
    /// (identity writes the code on a line of its own); nil when the email carries none (links only, a reset).
    public static func code(inMessage body: String) -> String? {
        for line in body.split(whereSeparator: \.isNewline) {
            let candidate = line.drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }
            let text = String(candidate.reversed())
            if isWellFormed(text) { return text }
        }
        return nil
    }
}
