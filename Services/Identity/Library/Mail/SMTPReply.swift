import NIOCore

/// One SMTP reply (RFC 5321 §4.2): a three-digit code and its lines of text, multi-line replies joined.
struct SMTPReply: Sendable, Equatable {
    var code: Int
    var lines: [String]

    /// 2xx.
    var isPositive: Bool { (200..<300).contains(code) }
    /// 3xx: the server waits for more (DATA's 354, AUTH's 334).
    var isIntermediate: Bool { (300..<400).contains(code) }
    /// 4xx: try again later.
    var isTransientFailure: Bool { (400..<500).contains(code) }

    /// The enhanced status code (RFC 3463) at the start of the first line, e.g. "5.1.1", if there is one. Safe to
    /// log, unlike the text, which may quote an address.
    var enhancedCode: String? {
        guard let first = lines.first?.split(separator: " ", maxSplits: 1).first else { return nil }
        let parts = first.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, parts.allSatisfy({ !$0.isEmpty && $0.allSatisfy(\.isNumber) }) else { return nil }
        return String(first)
    }

    /// The EHLO keywords, upper-cased, each with its parameters (`AUTH` → `["PLAIN", "LOGIN"]`). The first line
    /// is the server's greeting, not an extension.
    var extensions: [String: [String]] {
        var found: [String: [String]] = [:]
        for line in lines.dropFirst() {
            let words = line.split(separator: " ").map { $0.uppercased() }
            guard let keyword = words.first else { continue }
            found[keyword] = Array(words.dropFirst())
        }
        return found
    }

    /// Code and enhanced code, for errors and logs (the text may quote an address, so it is left out).
    var summary: String { enhancedCode.map { "\(code) \($0)" } ?? "\(code)" }
}

/// Splits the server's bytes into replies. Limits: a line of at most `lineBytesMax` bytes, a reply of at most
/// `linesMax` lines; beyond either, or on a line that is not `DDD`, `DDD text` or `DDD-text`, it throws.
struct SMTPReplyParser {
    static let lineBytesMax = 2048
    static let linesMax = 64

    private var buffer = ByteBuffer()
    private var pending: [String] = []
    private var pendingCode: Int?

    /// Whether bytes the server sent have not been parsed yet (after the reply to STARTTLS there must be none:
    /// they would be read as if they came over TLS).
    var hasBufferedBytes: Bool { buffer.readableBytes > 0 }

    mutating func append(_ bytes: ByteBuffer) {
        var bytes = bytes
        buffer.writeBuffer(&bytes)
    }

    /// The next complete reply, or nil until more bytes arrive.
    mutating func next() throws(SMTPError) -> SMTPReply? {
        while let line = try nextLine() {
            let scalars = Array(line.utf8)
            guard scalars.count >= 3, scalars.prefix(3).allSatisfy({ (0x30...0x39).contains($0) }),
                let code = Int(String(decoding: scalars.prefix(3), as: UTF8.self)), (200...599).contains(code)
            else { throw .protocolViolation("a reply line does not start with a code") }
            if let pendingCode, pendingCode != code {
                throw .protocolViolation("a multi-line reply changed its code")
            }
            let separator = scalars.count > 3 ? scalars[3] : UInt8(ascii: " ")
            guard separator == UInt8(ascii: " ") || separator == UInt8(ascii: "-") else {
                throw .protocolViolation("a reply line has no separator after its code")
            }
            pending.append(scalars.count > 4 ? String(decoding: scalars[4...], as: UTF8.self) : "")
            guard pending.count <= Self.linesMax else { throw .protocolViolation("a reply has too many lines") }
            if separator == UInt8(ascii: "-") {
                pendingCode = code
                continue
            }
            defer {
                pending = []
                pendingCode = nil
            }
            return SMTPReply(code: code, lines: pending)
        }
        return nil
    }

    /// One line without its CRLF (a bare LF also ends a line), or nil if none is complete.
    private mutating func nextLine() throws(SMTPError) -> String? {
        let view = buffer.readableBytesView
        guard let newline = view.firstIndex(of: UInt8(ascii: "\n")) else {
            guard view.count <= Self.lineBytesMax else { throw .protocolViolation("a reply line is too long") }
            return nil
        }
        let length = newline - view.startIndex
        guard length <= Self.lineBytesMax else { throw .protocolViolation("a reply line is too long") }
        var line = buffer.readBytes(length: length + 1)!
        line.removeLast()
        if line.last == UInt8(ascii: "\r") { line.removeLast() }
        buffer.discardReadBytes()
        return String(decoding: line, as: UTF8.self)
    }
}
