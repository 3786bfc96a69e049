import Foundation
import Logging
import Synchronization
import Testing

@testable import FoyerServiceKit

/// Log lines carry values chosen by clients (an email, a peer name, a header, a key); none of them may end a line,
/// forge another one, or reach a terminal as a control sequence, in either format.
@Suite("Structured log lines")
struct StructuredLogHandlerTests {
    /// Logs one event through a handler in `format` and returns what it wrote.
    static func written(
        _ format: LogFormat,
        _ message: Logger.Message,
        metadata: Logger.Metadata = [:],
        error: (any Error)? = nil
    ) -> String {
        let output = Mutex<[String]>([])
        let handler = StructuredLogHandler(label: "foyer.test", level: .trace, format: format) { line in
            output.withLock { $0.append(line) }
        }
        let logger = Logger(label: "foyer.test") { _ in handler }
        if let error {
            logger.warning(message, error: error, metadata: metadata)
        } else {
            logger.info(message, metadata: metadata)
        }
        let lines = output.withLock { $0 }
        #expect(lines.count == 1)
        return lines.first ?? ""
    }

    /// A value an attacker might choose: a forged second line, a terminal escape (ESC, CSI as one C1 character),
    /// a carriage return, DEL, a bell, and the Unicode line separator.
    static let hostile =
        "victim@example.com\r\ntime=2026-01-01T00:00:00Z level=critical message=\"forged\"\u{1B}[2J\u{9B}31m\u{7F}\u{07}\u{2028}end"

    struct Failure: Error, CustomStringConvertible {
        var description: String { Self.text }
        static let text = "bad\nthing\u{1B}]0;title\u{07}"
    }

    /// Whether `line` holds a character that could break it or drive a terminal (the newline at its end aside).
    static func hasControls(_ line: String) -> Bool {
        line.dropLast().unicodeScalars.contains {
            $0.value < 0x20 || (0x7F...0x9F).contains($0.value) || $0.value == 0x2028 || $0.value == 0x2029
        }
    }

    @Test("text: message, metadata keys and values, and the error are escaped; the line stays one line")
    func text() {
        let line = Self.written(
            .text,
            "refused \(Self.hostile)",
            metadata: ["peer.name": "\(Self.hostile)", "key\n\u{1B}=x y": "v"],
            error: Failure()
        )
        #expect(line.hasSuffix("\n") && line.filter { $0 == "\n" || $0 == "\r\n" }.count == 1)
        #expect(!Self.hasControls(line))
        #expect(line.contains(#"victim@example.com\r\ntime=2026"#))
        #expect(line.contains(#"\u001b[2J\u009b31m\u007f\u0007\u2028end"#))
        #expect(line.contains(#" key\n\u001b\u003dx\u0020y=v"#))
        #expect(line.hasSuffix(#" error=bad\nthing\u001b]0;title\u0007"# + "\n"))
        #expect(line.contains(#"forged\""#))
    }

    @Test("json: every value and key is escaped, and decodes back to what was logged")
    func json() throws {
        let line = Self.written(
            .json,
            "refused \(Self.hostile)",
            metadata: ["peer.name": "\(Self.hostile)", "key\n\u{1B}": "v"],
            error: Failure()
        )
        #expect(line.hasSuffix("\n") && line.filter { $0 == "\n" || $0 == "\r\n" }.count == 1)
        #expect(!Self.hasControls(line))
        let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: String])
        #expect(object["message"] == "refused \(Self.hostile)")
        #expect(object["peer.name"] == Self.hostile)
        #expect(object["key\n\u{1B}"] == "v")
        #expect(object["error"] == Failure.text)
        #expect(object["level"] == "warning" && object["logger"] == "foyer.test")
    }

    @Test("metadata cannot take the name of the line's own fields", arguments: [LogFormat.text, .json])
    func reservedKeys(format: LogFormat) throws {
        let line = Self.written(format, "hello", metadata: ["level": "critical", "message": "forged", "time": "0"])
        if format == .json {
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: String])
            #expect(object["level"] == "info" && object["message"] == "hello" && object["time"] != "0")
            #expect(object["metadata.level"] == "critical" && object["metadata.message"] == "forged")
        } else {
            #expect(line.contains(" level=info ") && line.contains(" message=hello"))
            #expect(!line.contains(" level=critical") && !line.contains(" message=forged"))
            #expect(line.contains(" metadata.level=critical") && line.contains(" metadata.message=forged"))
        }
    }

    @Test("ordinary values are left as they are")
    func plain() {
        let line = Self.written(.text, "listening", metadata: ["server.address": "[IPv4]127.0.0.1/127.0.0.1:7401"])
        #expect(line.contains(" message=listening server.address=[IPv4]127.0.0.1/127.0.0.1:7401\n"))
        #expect(StructuredLogHandler.escaped("grüße, 🙂") == "grüße, 🙂")
    }
}
