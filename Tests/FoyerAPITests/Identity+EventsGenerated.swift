import FoyerAPI
import FoyerWire

/// Generators of identity's event messages (`listEvents`, `getEvent`, `replayEvent`) and of the finishing steps
/// that write events (`finishMerge`, `finishDelete`).
extension ListEventsRequest: Generated {
    static func generate(_ values: inout WireValues) -> ListEventsRequest {
        ListEventsRequest(
            uid: values.optional { $0.uid() },
            state: values.optional { $0.anyCase(of: EventState.self) },
            before: values.optional { $0.integer() },
            limit: values.integer(in: 1...UInt32(EventLimits.pageCountMax))
        )
    }
}

extension EventRequest: Generated {
    static func generate(_ values: inout WireValues) -> EventRequest {
        EventRequest(id: values.text(.printableASCII, minBytes: 1, maxBytes: EventLimits.idByteCountMax))
    }
}

extension EventInfo: Generated {
    static func generate(_ values: inout WireValues) -> EventInfo {
        EventInfo(
            position: values.integer(),
            id: values.text(maxBytes: EventLimits.idByteCountMax),
            type: values.text(maxBytes: EventLimits.typeByteCountMax),
            uid: values.uid(),
            sequence: values.integer(),
            occurredAtMilliseconds: values.millisecondsSinceEpoch(),
            state: values.anyCase(of: EventState.self),
            attempts: values.integer(),
            nextAttemptAtMilliseconds: values.millisecondsSinceEpoch(),
            deliveredAtMilliseconds: values.optional { $0.millisecondsSinceEpoch() },
            lastError: values.optional { $0.text(maxBytes: EventLimits.errorByteCountMax) },
            body: values.text(maxBytes: EventLimits.bodyByteCountMax)
        )
    }
}

extension EventPage: Generated {
    static func generate(_ values: inout WireValues) -> EventPage {
        EventPage(
            events: values.list(maxCount: 4) { $0.message() },
            next: values.optional { $0.integer() }
        )
    }
}

extension FinishMergeRequest: Generated {
    static func generate(_ values: inout WireValues) -> FinishMergeRequest {
        FinishMergeRequest(
            uid: values.uid(),
            operationID: values.operationID(),
            report: MergeReport(
                moved: values.integer(),
                conflicts: values.integer(),
                keptAccount: values.integer(),
                keptGuest: values.integer(),
                keptBoth: values.integer()
            ),
            answer: values.optional { $0.message() }
        )
    }
}

extension FinishDeleteRequest: Generated {
    static func generate(_ values: inout WireValues) -> FinishDeleteRequest {
        FinishDeleteRequest(
            uid: values.uid(),
            operationID: values.operationID(),
            answer: values.optional { $0.message() }
        )
    }
}
