import FoyerAPI
import FoyerWire

extension ServiceGenerators {
    static let guestQuota = ServiceGenerators(
        service: "guest-quota",
        table: GuestQuotaMethods.all,
        methods: [
            MethodChecks(GuestQuotaMethods.admitSignup),
            MethodChecks(GuestQuotaMethods.openAccount),
            MethodChecks(GuestQuotaMethods.changePlan),
            MethodChecks(GuestQuotaMethods.consume),
            MethodChecks(GuestQuotaMethods.refund),
            MethodChecks(GuestQuotaMethods.release),
            MethodChecks(GuestQuotaMethods.usage),
            MethodChecks(GuestQuotaMethods.feature),
            MethodChecks(GuestQuotaMethods.merge),
            MethodChecks(GuestQuotaMethods.deleteAll),
            MethodChecks(GuestQuotaMethods.deleteAllBatch),
            MethodChecks(GuestQuotaMethods.stats),
            MethodChecks(GuestQuotaMethods.prune),
        ],
        details: [RoundTripCheck(QuotaExceededDetails.self)]
    )
}

/// Guest-quota's fields: uids, plan, counter and feature names, operation keys (decoders check lengths only).
extension WireValues {
    mutating func quotaUID() -> String { text(.uid, maxBytes: GuestQuotaLimits.uidByteCountMax) }
    mutating func quotaName() -> String { text(maxBytes: GuestQuotaLimits.nameByteCountMax) }
    mutating func quotaKey() -> String { text(.printableASCII, maxBytes: GuestQuotaLimits.operationKeyByteCountMax) }
}

extension AdmitSignupRequest: Generated {
    static func generate(_ values: inout WireValues) -> AdmitSignupRequest {
        AdmitSignupRequest(
            source: values.text(maxBytes: GuestQuotaLimits.sourceByteCountMax),
            uid: values.optional { $0.text(.uid, minBytes: 1, maxBytes: GuestQuotaLimits.uidByteCountMax) }
        )
    }
}

extension AdmitSignupResponse: Generated {
    static func generate(_ values: inout WireValues) -> AdmitSignupResponse {
        AdmitSignupResponse(
            remainingForSource: values.integer(),
            liveGuests: values.integer(),
            liveGuestsMax: values.integer()
        )
    }
}

extension OpenQuotaAccountRequest: Generated {
    static func generate(_ values: inout WireValues) -> OpenQuotaAccountRequest {
        OpenQuotaAccountRequest(uid: values.quotaUID(), plan: values.quotaName())
    }
}

extension OpenQuotaAccountResponse: Generated {
    static func generate(_ values: inout WireValues) -> OpenQuotaAccountResponse {
        OpenQuotaAccountResponse(created: values.bool(), plan: values.quotaName())
    }
}

extension ChangePlanRequest: Generated {
    static func generate(_ values: inout WireValues) -> ChangePlanRequest {
        ChangePlanRequest(uid: values.quotaUID(), plan: values.quotaName())
    }
}

extension ChangePlanResponse: Generated {
    static func generate(_ values: inout WireValues) -> ChangePlanResponse {
        ChangePlanResponse(previousPlan: values.quotaName(), plan: values.quotaName())
    }
}

extension ConsumeRequest: Generated {
    static func generate(_ values: inout WireValues) -> ConsumeRequest {
        ConsumeRequest(
            uid: values.quotaUID(),
            charges: values.list(minCount: 1, maxCount: GuestQuotaLimits.chargesMax) { $0.message() }
        )
    }
}

extension QuotaCharge: Generated {
    static func generate(_ values: inout WireValues) -> QuotaCharge {
        QuotaCharge(counter: values.quotaName(), amount: values.integer(), idempotencyKey: values.quotaKey())
    }
}

extension CounterUsage: Generated {
    static func generate(_ values: inout WireValues) -> CounterUsage {
        CounterUsage(counter: values.quotaName(), limit: values.integer(), used: values.integer())
    }
}

extension FeatureFlag: Generated {
    static func generate(_ values: inout WireValues) -> FeatureFlag {
        FeatureFlag(feature: values.quotaName(), enabled: values.bool())
    }
}

extension ConsumeResponse: Generated {
    static func generate(_ values: inout WireValues) -> ConsumeResponse {
        ConsumeResponse(
            usage: values.list(maxCount: GuestQuotaLimits.chargesMax) { $0.message() },
            replayed: values.bool(),
            opened: values.bool()
        )
    }
}

extension RefundRequest: Generated {
    static func generate(_ values: inout WireValues) -> RefundRequest {
        RefundRequest(uid: values.quotaUID(), idempotencyKey: values.quotaKey())
    }
}

extension RefundResponse: Generated {
    static func generate(_ values: inout WireValues) -> RefundResponse {
        RefundResponse(
            outcome: values.pick([.refunded, .alreadyRefunded, .notFound]),
            usage: values.optional { $0.message() }
        )
    }
}

extension ReleaseRequest: Generated {
    static func generate(_ values: inout WireValues) -> ReleaseRequest {
        ReleaseRequest(
            uid: values.quotaUID(),
            counter: values.quotaName(),
            amount: values.integer(in: 0...UInt64(Int64.max)),
            idempotencyKey: values.quotaKey()
        )
    }
}

extension QuotaUsageRequest: Generated {
    static func generate(_ values: inout WireValues) -> QuotaUsageRequest { QuotaUsageRequest(uid: values.quotaUID()) }
}

extension QuotaUsageResponse: Generated {
    static func generate(_ values: inout WireValues) -> QuotaUsageResponse {
        QuotaUsageResponse(
            plan: values.quotaName(),
            counters: values.list(maxCount: GuestQuotaLimits.entriesMax) { $0.message() },
            features: values.list(maxCount: GuestQuotaLimits.entriesMax) { $0.message() }
        )
    }
}

extension FeatureCheckRequest: Generated {
    static func generate(_ values: inout WireValues) -> FeatureCheckRequest {
        FeatureCheckRequest(uid: values.quotaUID(), feature: values.quotaName())
    }
}

extension FeatureCheckResponse: Generated {
    static func generate(_ values: inout WireValues) -> FeatureCheckResponse {
        FeatureCheckResponse(plan: values.quotaName(), enabled: values.bool())
    }
}

extension QuotaMergeRequest: Generated {
    static func generate(_ values: inout WireValues) -> QuotaMergeRequest {
        QuotaMergeRequest(fromUID: values.quotaUID(), toUID: values.quotaUID(), op: values.quotaKey())
    }
}

extension QuotaMergeResponse: Generated {
    static func generate(_ values: inout WireValues) -> QuotaMergeResponse {
        QuotaMergeResponse(
            guestFound: values.bool(),
            counters: values.list(maxCount: GuestQuotaLimits.entriesMax) {
                MergedCounter(counter: $0.quotaName(), added: $0.integer())
            }
        )
    }
}

extension QuotaDeleteAllRequest: Generated {
    static func generate(_ values: inout WireValues) -> QuotaDeleteAllRequest {
        QuotaDeleteAllRequest(uid: values.quotaUID())
    }
}

extension QuotaDeleteAllResponse: Generated {
    static func generate(_ values: inout WireValues) -> QuotaDeleteAllResponse {
        QuotaDeleteAllResponse(existed: values.bool(), wasGuest: values.bool())
    }
}

extension GuestQuotaStats: Generated {
    static func generate(_ values: inout WireValues) -> GuestQuotaStats {
        GuestQuotaStats(
            liveGuests: values.integer(),
            liveGuestsMax: values.integer(),
            denialsLastHour: values.integer(),
            denialsByKind: values.list(maxCount: GuestQuotaLimits.denialKindsMax) { $0.message() }
        )
    }
}

extension DenialCount: Generated {
    static func generate(_ values: inout WireValues) -> DenialCount {
        DenialCount(kind: values.quotaName(), count: values.integer())
    }
}

extension QuotaExceededDetails: Generated {
    static func generate(_ values: inout WireValues) -> QuotaExceededDetails {
        QuotaExceededDetails(usage: values.message(), requested: values.integer())
    }
}
