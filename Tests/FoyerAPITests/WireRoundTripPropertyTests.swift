import Foundation
import Testing

/// `decode(encode(m)) == m` for generated values of every request, response and error-details type of the five
/// operation tables, and every truncation refused, a trailing byte refused (`RoundTripCheck` says how fully).
///
/// The seed is random per run and printed with any failure; `FOYER_WIRE_SEED=0x…` runs with a given one again.
@Suite("Wire messages: generated values of every method's types round-trip")
struct WireRoundTripPropertyTests {
    static let valuesPerType = 100

    static let seed: UInt64 = {
        if let text = ProcessInfo.processInfo.environment["FOYER_WIRE_SEED"] {
            let digits = text.hasPrefix("0x") ? String(text.dropFirst(2)) : text
            if let seed = UInt64(digits, radix: 16) { return seed }
        }
        return UInt64.random(in: 0...UInt64.max)
    }()

    private func check(_ generators: ServiceGenerators) {
        let failures = generators.failures(valuesPerType: Self.valuesPerType, seed: Self.seed)
        #expect(
            failures.isEmpty,
            "\(generators.service), FOYER_WIRE_SEED=0x\(String(Self.seed, radix: 16)):\n\(failures.joined(separator: "\n"))"
        )
    }

    @Test func identity() { check(.identity) }
    @Test func guestQuota() { check(.guestQuota) }
    @Test func userData() { check(.userData) }
    @Test func cleanup() { check(.cleanup) }
    @Test func gateway() { check(.gateway) }
}
