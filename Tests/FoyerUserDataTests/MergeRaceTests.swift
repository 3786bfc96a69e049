import FoyerAPI
import FoyerRPC
import FoyerTestSupport
import FoyerWire
import NIOCore
import Testing

@Suite("a merge racing with writes loses nothing")
struct MergeRaceTests {
    @Test(
        "writes to the account and to the guest during a merge all end up in the account, or are refused",
        arguments: TestEngine.allCases
    )
    func mergeRacingWrites(engine: TestEngine) async throws {
        try await withUserData(engine, configure: { $0.mergeBatchSize = 7 }) { data async throws in
            let guest = testUID()
            let account = testUID()
            for index in 0..<120 { try await data.put(guest, "notes", "g\(index)", "guest \(index)") }
            for index in 0..<30 { try await data.put(account, "notes", "a\(index)", "account \(index)") }

            let (report, guestWrites) = try await withThrowingTaskGroup(of: RaceOutcome.self) { group in
                group.addTask { .merged(try await data.merge(guest, into: account, op: "race", policy: .keepBoth)) }
                group.addTask {
                    for index in 0..<60 { try await data.put(account, "notes", "n\(index)", "new \(index)") }
                    return .accountWrites
                }
                group.addTask {
                    var acknowledged: [Int] = []
                    for index in 0..<40 {
                        do {
                            try await data.put(guest, "notes", "late\(index)", "late \(index)")
                            acknowledged.append(index)
                        } catch let error as RPCError where error.status == UserDataStatus.uidMerged {
                            continue
                        }
                    }
                    return .guestWrites(acknowledged)
                }
                var report: MergeReport?
                var guestWrites: [Int] = []
                for try await outcome in group {
                    switch outcome {
                    case .merged(let merged): report = merged
                    case .guestWrites(let acknowledged): guestWrites = acknowledged
                    case .accountWrites: break
                    }
                }
                return (try #require(report), guestWrites)
            }

            #expect(report.conflicts == 0)
            #expect(report.moved == UInt64(120 + guestWrites.count))
            #expect(try await data.count(guest) == 0)
            let documents = try await data.exportAll(account).documents
            var values: [String: String] = [:]
            for document in documents { values[document.key] = String(buffer: document.value) }
            #expect(documents.count == 120 + 30 + 60 + guestWrites.count)
            for index in 0..<120 { #expect(values["g\(index)"] == "guest \(index)") }
            for index in 0..<30 { #expect(values["a\(index)"] == "account \(index)") }
            for index in 0..<60 { #expect(values["n\(index)"] == "new \(index)") }
            for index in guestWrites { #expect(values["late\(index)"] == "late \(index)") }
        }
    }

    private enum RaceOutcome: Sendable {
        case merged(MergeReport)
        case accountWrites
        case guestWrites([Int])
    }

    @Test("concurrent retries of one merge op move every document exactly once", arguments: TestEngine.allCases)
    func concurrentRetries(engine: TestEngine) async throws {
        try await withUserData(engine, configure: { $0.mergeBatchSize = 5 }) { data async throws in
            let guest = testUID()
            let account = testUID()
            for index in 0..<40 { try await data.put(guest, "notes", "g\(index)", "guest \(index)") }
            for index in 0..<10 { try await data.put(account, "notes", "g\(index)", "account \(index)") }
            let reports = try await withThrowingTaskGroup(of: MergeReport.self) { group in
                for _ in 0..<4 {
                    group.addTask { try await data.merge(guest, into: account, op: "same-op", policy: .keepBoth) }
                }
                return try await group.reduce(into: [MergeReport]()) { $0.append($1) }
            }
            #expect(Set(reports).count == 1)
            #expect(reports.first?.moved == 30 && reports.first?.keptBoth == 10)
            #expect(try await data.count(account) == 50)
            #expect(try await data.count(guest) == 0)
        }
    }
}
