import FoyerAPI
import FoyerWire

// The types several services share: batches, batch outcomes and pruning.

extension Batch: Generated where Element: Generated {
    static func generate(_ values: inout WireValues) -> Batch {
        Batch(values.list(maxCount: Batch.countMax) { $0.message(Element.self) })
    }
}

extension BatchOutcome: Generated {
    static func generate(_ values: inout WireValues) -> BatchOutcome {
        guard values.oneIn(4) else { return .done }
        return BatchOutcome(
            status: RPCStatus(rawValue: values.integer(in: 1...UInt16.max)),
            message: values.text(maxBytes: BatchOutcome.messageByteCountMax)
        )
    }
}

extension PruneRequest: Generated {
    static func generate(_ values: inout WireValues) -> PruneRequest {
        PruneRequest(limit: values.integer(in: 1...PruneRequest.limitMax))
    }
}

extension PruneResponse: Generated {
    static func generate(_ values: inout WireValues) -> PruneResponse { PruneResponse(removed: values.integer()) }
}
