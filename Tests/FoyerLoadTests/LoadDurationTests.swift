import FoyerClient
import Testing

@testable import FoyerLoad

@Suite("Load durations")
struct LoadDurationTests {
    @Test(
        "a number and a unit, or several in a row",
        arguments: [
            ("500ms", Duration.milliseconds(500)),
            ("30s", .seconds(30)),
            ("2m", .seconds(120)),
            ("1h", .seconds(3600)),
            ("1m30s", .seconds(90)),
            (" 45s ", .seconds(45)),
        ]
    )
    func parses(text: String, expected: Duration) throws {
        #expect(try LoadDuration.parse(text) == expected)
    }

    @Test(
        "no unit, an unknown unit, nothing, zero or a sign is refused",
        arguments: [
            "30", "5x", "", "0s", "-5s", "s", "1.5s", "10sec",
        ]
    )
    func refuses(text: String) {
        #expect(throws: FoyerError.invalidInput) { try LoadDuration.parse(text) }
    }

    @Test("the refusal of a bare number asks for a unit")
    func bareNumberMessage() {
        do {
            _ = try LoadDuration.parse("30")
            Issue.record("30 was accepted")
        } catch {
            #expect(error.message.contains("needs a unit"))
        }
    }

    @Test(
        "text is the shortest form and parses back",
        arguments: [
            (Duration.milliseconds(500), "500ms"),
            (.seconds(30), "30s"),
            (.seconds(120), "2m"),
            (.seconds(90), "1m30s"),
            (.seconds(3661), "1h1m1s"),
            (.milliseconds(1500), "1500ms"),
        ]
    )
    func text(duration: Duration, expected: String) throws {
        #expect(LoadDuration.text(duration) == expected)
        #expect(try LoadDuration.parse(expected) == duration)
    }
}
