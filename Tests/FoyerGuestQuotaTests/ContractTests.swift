import FoyerAPI
import FoyerWire
import NIOCore
import Testing

@Suite("guest-quota's wire contract")
struct ContractTests {
    private func roundTrip<M: WireMessage & Equatable>(_ message: M) throws {
        let encoded = message.encoded()
        #expect(try M(decoding: encoded) == message)
        var trailing = encoded
        trailing.writeInteger(UInt8(0))
        #expect(throws: WireError.trailingBytes) { try M(decoding: trailing) }
        if encoded.readableBytes > 0 {
            #expect(throws: WireError.self) {
                try M(decoding: encoded.getSlice(at: 0, length: encoded.readableBytes - 1)!)
            }
        }
    }

    @Test("every message round-trips and refuses trailing and missing bytes")
    func roundTrips() throws {
        let usage = CounterUsage(counter: "documents", limit: 20, used: 25)
        #expect(usage.remaining == 0)
        try roundTrip(AdmitSignupRequest(source: "2001:db8::1"))
        try roundTrip(AdmitSignupResponse(remainingForSource: 3, liveGuests: 10, liveGuestsMax: 1_000_000))
        try roundTrip(OpenQuotaAccountRequest(uid: "u1", plan: "guest"))
        try roundTrip(OpenQuotaAccountResponse(created: true, plan: "guest"))
        try roundTrip(ChangePlanRequest(uid: "u1", plan: "member"))
        try roundTrip(ChangePlanResponse(previousPlan: "guest", plan: "member"))
        let charge = QuotaCharge(counter: "bytes", amount: -7, idempotencyKey: "k")
        try roundTrip(charge)
        try roundTrip(ConsumeRequest(uid: "u1", charges: [charge, charge]))
        try roundTrip(ConsumeResponse(usage: [usage, usage], replayed: true, opened: false))
        try roundTrip(QuotaExceededDetails(usage: usage, requested: 4))
        try roundTrip(RefundRequest(uid: "u1", idempotencyKey: "k"))
        try roundTrip(ReleaseRequest(uid: "u1", counter: "bytes", amount: 4096, idempotencyKey: "del:k"))
        try roundTrip(RefundResponse(outcome: .refunded, usage: usage))
        try roundTrip(RefundResponse(outcome: .notFound, usage: nil))
        try roundTrip(QuotaUsageRequest(uid: "u1"))
        try roundTrip(
            QuotaUsageResponse(
                plan: "guest",
                counters: [usage],
                features: [FeatureFlag(feature: "import", enabled: true)]
            )
        )
        try roundTrip(FeatureCheckRequest(uid: "u1", feature: "import"))
        try roundTrip(FeatureCheckResponse(plan: "member", enabled: true))
        try roundTrip(QuotaMergeRequest(fromUID: "g", toUID: "a", op: "op-1"))
        try roundTrip(QuotaMergeResponse(guestFound: true, counters: [.init(counter: "documents", added: 3)]))
        try roundTrip(QuotaDeleteAllRequest(uid: "u1"))
        try roundTrip(QuotaDeleteAllResponse(existed: true, wasGuest: false))
        try roundTrip(GuestQuotaStats(liveGuests: 1, liveGuestsMax: 2))
        try roundTrip(
            GuestQuotaStats(
                liveGuests: 1,
                liveGuestsMax: 2,
                denialsLastHour: 300,
                denialsByKind: [DenialCount(kind: "documents", count: 299), DenialCount(kind: "signup", count: 1)]
            )
        )
        try roundTrip(DenialCount(kind: "signup", count: 7))
    }

    @Test("a stats body is pinned byte for byte: live guests, cap, denials in the last hour, then the kinds")
    func statsBytes() {
        let body = GuestQuotaStats(
            liveGuests: 1,
            liveGuestsMax: 2,
            denialsLastHour: 300,
            denialsByKind: [DenialCount(kind: "ab", count: 3)]
        ).encoded()
        #expect(Array(body.readableBytesView) == [0x01, 0x02, 0xAC, 0x02, 0x01, 0x02, 0x61, 0x62, 0x03])
    }

    @Test("a consume body is pinned byte for byte; it charges 1 to 8 counters")
    func consumeBytes() {
        let charge = QuotaCharge(counter: "c", amount: 1, idempotencyKey: "k")
        let body = ConsumeRequest(uid: "u", charges: [charge]).encoded()
        #expect(
            Array(body.readableBytesView) == [0x01, 0x75, 0x01, 0x01, 0x63, 0, 0, 0, 0, 0, 0, 0, 0x01, 0x01, 0x6B]
        )
        let none = ConsumeRequest(uid: "u", charges: []).encoded()
        #expect(throws: WireError.self) { try ConsumeRequest(decoding: none) }
        let nine = ConsumeRequest(uid: "u", charges: Array(repeating: charge, count: GuestQuotaLimits.chargesMax + 1))
        #expect(throws: WireError.self) { try ConsumeRequest(decoding: nine.encoded()) }
    }

    @Test("caps are enforced by the decoders")
    func caps() {
        var long = ByteBuffer()
        long.writeLengthPrefixedString(String(repeating: "u", count: GuestQuotaLimits.uidByteCountMax + 1))
        #expect(throws: WireError.lengthOverLimit) { try QuotaUsageRequest(decoding: long) }
        var counters = ByteBuffer()
        counters.writeLengthPrefixedString("guest")
        counters.writeVarint(UInt64(GuestQuotaLimits.entriesMax + 1))
        #expect(throws: WireError.lengthOverLimit) { try QuotaUsageResponse(decoding: counters) }
        var denials = ByteBuffer()
        for value in [UInt64(0), 0, 0, UInt64(GuestQuotaLimits.denialKindsMax + 1)] { denials.writeVarint(value) }
        #expect(throws: WireError.lengthOverLimit) { try GuestQuotaStats(decoding: denials) }
        var outcome = ByteBuffer()
        outcome.writeInteger(UInt8(3))
        outcome.writeBool(false)
        #expect(throws: WireError.invalidValue) { try RefundResponse(decoding: outcome) }
    }

    @Test("method ids and statuses sit in guest-quota's ranges and are distinct")
    func ranges() {
        let ids = GuestQuotaMethods.all.map(\.id)
        #expect(Set(ids).count == ids.count)
        #expect(ids.allSatisfy { ServiceRange.guestQuota.contains(methodID: $0) })
        #expect(Set(GuestQuotaStatus.all.map(\.rawValue)).count == GuestQuotaStatus.all.count)
        for status in GuestQuotaStatus.all {
            #expect(status.rawValue & 0xFF00 == 0x3200)
            #expect(status.retryClass == .rejected)
            #expect(GuestQuotaStatus.name(of: status) != nil)
        }
    }
}
