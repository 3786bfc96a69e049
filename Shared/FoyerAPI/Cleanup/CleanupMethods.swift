public import FoyerWire

/// The cleanup service's methods (0x0401…0x04FF).
public enum CleanupMethods {
    /// The last sweep: when, how many, how long, errors; and whether one is running now.
    public static let status = RPCMethod<Empty, CleanupStatusResponse>(
        id: 0x0401,
        name: "cleanup.status",
        idempotent: true
    )
    /// Sweeps now (or, with `dryRun`, counts what a sweep would delete and changes nothing).
    public static let sweep = RPCMethod<SweepRequest, SweepReport>(id: 0x0402, name: "cleanup.sweep", idempotent: false)
    /// Records that an account was deleted (by the gateway's delete-everything; cleanup records its own).
    /// Idempotent under the operation id.
    public static let recordDeletion = RPCMethod<RecordDeletionRequest, Empty>(
        id: 0x0403,
        name: "cleanup.recordDeletion",
        idempotent: true
    )
    /// Deletion records, newest first, for audits and tests.
    public static let listDeletions = RPCMethod<ListDeletionsRequest, DeletionRecords>(
        id: 0x0404,
        name: "cleanup.listDeletions",
        idempotent: true
    )

    // MARK: The operation table

    /// Every method above: the router serves exactly these (`RPCRouter(serving:)`), and the README's method table
    /// is tested against them.
    public static let all: [RPCMethodDescriptor] = [
        status.descriptor, sweep.descriptor, recordDeletion.descriptor, listDeletions.descriptor,
    ]
}

/// Why an account was deleted (`u8`).
public enum DeletionReason: UInt8, Sendable, CaseIterable, CustomStringConvertible {
    /// The user asked (delete-everything, or a guest's sign-out).
    case userRequest = 0
    /// A guest idle past the time to live.
    case ttl = 1
    /// A guest merged into an account, or discarded in favour of one.
    case merge = 2

    public var description: String {
        switch self {
        case .userRequest: "user-request"
        case .ttl: "ttl"
        case .merge: "merge"
        }
    }
}
