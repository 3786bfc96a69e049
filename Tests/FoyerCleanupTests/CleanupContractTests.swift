import FoyerAPI
import FoyerTestSupport
import FoyerWire
import NIOCore
import Testing

@Suite("Cleanup contract: every message round-trips and refuses what the contract does not allow")
struct CleanupContractTests {
    private static let report = SweepReport(
        dryRun: false,
        startedAtMilliseconds: 1_700_000_000_000,
        finishedAtMilliseconds: 1_700_000_000_250,
        expiredGuests: 300,
        stuckFinished: 2,
        errors: 1,
        lastError: "deleting an expired guest: unavailable",
        skipped: 5,
        recordsPurged: 70_000
    )

    private static func record(_ index: Int, id: String? = nil) -> DeletionRecords.Record {
        DeletionRecords.Record(
            pseudonymousID: id ?? String(repeating: "ab", count: 32),
            reason: DeletionReason.allCases[index % DeletionReason.allCases.count],
            deletedAtMilliseconds: 1_700_000_000_000 + UInt64(index)
        )
    }

    // MARK: Round trips

    @Test("Requests decode to what was encoded, and refuse truncation and trailing bytes")
    func requestsRoundTrip() throws {
        for reason in DeletionReason.allCases {
            try WireMessageChecks.roundTrip(RecordDeletionRequest(operationID: "op-1", uid: "uid-1", reason: reason))
        }
        try WireMessageChecks.roundTrip(
            RecordDeletionRequest(
                operationID: String(repeating: "o", count: 128),
                uid: String(repeating: "u", count: 64),
                reason: .ttl
            )
        )
        try WireMessageChecks.roundTrip(RecordDeletionRequest(operationID: "o", uid: "", reason: .merge))
        try WireMessageChecks.roundTrip(SweepRequest(dryRun: true))
        try WireMessageChecks.roundTrip(SweepRequest(dryRun: false))
        for limit: UInt64 in [1, 127, 128, 1000] {
            try WireMessageChecks.roundTrip(ListDeletionsRequest(limit: limit))
        }
    }

    @Test("Responses decode to what was encoded, and refuse truncation and trailing bytes")
    func responsesRoundTrip() throws {
        try WireMessageChecks.roundTrip(Self.report)
        var dry = Self.report
        dry.dryRun = true
        dry.lastError = ""
        dry.skipped = 0
        dry.recordsPurged = 0
        try WireMessageChecks.roundTrip(dry)
        var extremes = Self.report
        extremes.startedAtMilliseconds = .max
        extremes.finishedAtMilliseconds = 0
        extremes.expiredGuests = .max
        extremes.lastError = String(repeating: "é", count: 512)
        try WireMessageChecks.roundTrip(extremes)
        try WireMessageChecks.roundTrip(CleanupStatusResponse(running: false, lastSweep: nil))
        try WireMessageChecks.roundTrip(CleanupStatusResponse(running: true, lastSweep: Self.report))
        try WireMessageChecks.roundTrip(DeletionRecords(records: []))
        try WireMessageChecks.roundTrip(DeletionRecords(records: (0..<3).map { Self.record($0) }))
        try WireMessageChecks.roundTrip(DeletionRecords(records: (0..<1000).map { Self.record($0, id: "") }))
        try WireMessageChecks.roundTrip(
            DeletionRecords(records: [Self.record(0, id: String(repeating: "f", count: 128))])
        )
    }

    // MARK: Bad input

    @Test("recordDeletion refuses an empty or over-long operation id, an over-long uid and an unknown reason")
    func recordDeletionRefuses() {
        let empty = RecordDeletionRequest(operationID: "", uid: "uid-1", reason: .userRequest)
        #expect(throws: WireError.invalidValue) { try RecordDeletionRequest(decoding: empty.encoded()) }
        let longOperation = RecordDeletionRequest(
            operationID: String(repeating: "o", count: 129),
            uid: "uid-1",
            reason: .userRequest
        )
        #expect(throws: WireError.lengthOverLimit) { try RecordDeletionRequest(decoding: longOperation.encoded()) }
        let longUID = RecordDeletionRequest(operationID: "op", uid: String(repeating: "u", count: 65), reason: .ttl)
        #expect(throws: WireError.lengthOverLimit) { try RecordDeletionRequest(decoding: longUID.encoded()) }

        // Given: "op" (1 + 2 bytes) and "u" (1 + 1 bytes), the reason is the byte at offset 5.
        let message = RecordDeletionRequest(operationID: "op", uid: "u", reason: .userRequest)
        let valid = Set(DeletionReason.allCases.map(\.rawValue))
        for (value, outcome) in zip(0...UInt8.max, WireMessageChecks.decodingEachValue(ofByteAt: 5, of: message)) {
            switch outcome {
            case .success(let decoded):
                #expect(valid.contains(value) && decoded.reason.rawValue == value)
            case .failure(let error):
                #expect(!valid.contains(value) && error == .invalidValue, "reason \(value): \(error)")
            }
        }
    }

    @Test("sweep and status refuse a bool that is neither 0 nor 1")
    func boolsRefused() {
        for (value, outcome) in zip(
            0...UInt8.max,
            WireMessageChecks.decodingEachValue(ofByteAt: 0, of: SweepRequest(dryRun: false))
        ) {
            switch outcome {
            case .success(let decoded): #expect(value <= 1 && decoded.dryRun == (value == 1))
            case .failure(let error): #expect(value > 1 && error == .invalidValue, "dryRun \(value): \(error)")
            }
        }
        let outcomes = WireMessageChecks.decodingEachValue(ofByteAt: 0, of: Self.report)
        for value in 2...UInt8.max {
            #expect(throws: WireError.invalidValue) { try outcomes[Int(value)].get() }
        }
        let status = CleanupStatusResponse(running: false, lastSweep: nil)
        let presence = WireMessageChecks.decodingEachValue(ofByteAt: 1, of: status)
        #expect(throws: WireError.truncatedBody) { try presence[1].get() }
        for value in 2...UInt8.max {
            #expect(throws: WireError.invalidValue) { try presence[Int(value)].get() }
        }
    }

    @Test("A sweep report's last error is cut to 1024 bytes when encoded, and refused past that when decoded")
    func lastErrorCap() throws {
        var long = Self.report
        long.lastError = String(repeating: "x", count: 1025)
        let decoded = try SweepReport(decoding: long.encoded())
        #expect(decoded.lastError == String(repeating: "x", count: 1024))

        var body = ByteBuffer()
        body.writeBool(false)
        body.writeMultipleIntegers(UInt64(0), UInt64(0))
        body.writeVarint(0)
        body.writeVarint(0)
        body.writeVarint(0)
        body.writeLengthPrefixedString(String(repeating: "x", count: 1025))
        body.writeVarint(0)
        body.writeVarint(0)
        #expect(throws: WireError.lengthOverLimit) { try SweepReport(decoding: body) }
    }

    @Test("listDeletions refuses a limit of 0 or over 1000")
    func listDeletionsLimits() {
        #expect(throws: WireError.invalidValue) {
            try ListDeletionsRequest(decoding: ListDeletionsRequest(limit: 0).encoded())
        }
        #expect(throws: WireError.invalidValue) {
            try ListDeletionsRequest(decoding: ListDeletionsRequest(limit: 1001).encoded())
        }
    }

    @Test("listDeletions answers refuse more than 1000 records, an over-long id and an unknown reason")
    func deletionRecordsRefuse() {
        let tooMany = DeletionRecords(records: (0..<1001).map { Self.record($0, id: "") })
        #expect(throws: WireError.lengthOverLimit) { try DeletionRecords(decoding: tooMany.encoded()) }
        let longID = DeletionRecords(records: [Self.record(0, id: String(repeating: "f", count: 129))])
        #expect(throws: WireError.lengthOverLimit) { try DeletionRecords(decoding: longID.encoded()) }
        // Given: one record with an empty id, its reason is the byte at offset 2 (count, id length, reason).
        let one = DeletionRecords(records: [Self.record(0, id: "")])
        let outcomes = WireMessageChecks.decodingEachValue(ofByteAt: 2, of: one)
        for value in UInt8(DeletionReason.allCases.count)...UInt8.max {
            #expect(throws: WireError.invalidValue) { try outcomes[Int(value)].get() }
        }
        // A count that the remaining bytes cannot hold is refused before anything is read.
        var body = ByteBuffer()
        body.writeVarint(2)
        body.writeBytes([UInt8](repeating: 0, count: 19))
        #expect(throws: WireError.countOverRemaining) { try DeletionRecords(decoding: body) }
    }
}
