import FoyerAPI
import FoyerWire

extension ServiceGenerators {
    static let cleanup = ServiceGenerators(
        service: "cleanup",
        table: CleanupMethods.all,
        methods: [
            MethodChecks(CleanupMethods.status),
            MethodChecks(CleanupMethods.sweep),
            MethodChecks(CleanupMethods.recordDeletion),
            MethodChecks(CleanupMethods.listDeletions),
        ],
        details: []
    )
}

extension CleanupStatusResponse: Generated {
    static func generate(_ values: inout WireValues) -> CleanupStatusResponse {
        CleanupStatusResponse(running: values.bool(), lastSweep: values.optional { $0.message() })
    }
}

extension SweepRequest: Generated {
    static func generate(_ values: inout WireValues) -> SweepRequest { SweepRequest(dryRun: values.bool()) }
}

extension SweepReport: Generated {
    static func generate(_ values: inout WireValues) -> SweepReport {
        SweepReport(
            dryRun: values.bool(),
            startedAtMilliseconds: values.integer(),
            finishedAtMilliseconds: values.integer(),
            expiredGuests: values.integer(),
            stuckFinished: values.integer(),
            errors: values.integer(),
            lastError: values.text(maxBytes: 1024),
            skipped: values.integer(),
            recordsPurged: values.integer()
        )
    }
}

extension RecordDeletionRequest: Generated {
    static func generate(_ values: inout WireValues) -> RecordDeletionRequest {
        RecordDeletionRequest(
            operationID: values.text(minBytes: 1, maxBytes: 128),
            uid: values.text(maxBytes: 64),
            reason: values.anyCase(of: DeletionReason.self)
        )
    }
}

extension ListDeletionsRequest: Generated {
    static func generate(_ values: inout WireValues) -> ListDeletionsRequest {
        ListDeletionsRequest(limit: values.integer(in: 1...1000))
    }
}

extension DeletionRecords: Generated {
    static func generate(_ values: inout WireValues) -> DeletionRecords {
        DeletionRecords(
            records: values.list(maxCount: 1000) {
                Record(
                    pseudonymousID: $0.text(maxBytes: 128),
                    reason: $0.anyCase(of: DeletionReason.self),
                    deletedAtMilliseconds: $0.integer()
                )
            }
        )
    }
}
