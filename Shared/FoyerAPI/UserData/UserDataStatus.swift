public import FoyerWire

/// user-data's own statuses (`0x3301`…: class 3, rejected; the same request gets the same answer).
///
/// A malformed uid or op id, an unknown merge policy or a body that does not decode is answered with the
/// runtime's `invalid-argument` (`0x3001`).
public enum UserDataStatus {
    /// The key is empty, longer than 256 bytes, or holds a control character. Details: none.
    public static let invalidKey = RPCStatus(rawValue: 0x3301)
    /// The collection is empty, longer than 64 bytes, or holds a byte outside `A-Z a-z 0-9 _ . -`. Details: none.
    public static let invalidCollection = RPCStatus(rawValue: 0x3302)
    /// The value is larger than the server's cap. Details: `ValueTooLargeDetails`.
    public static let valueTooLarge = RPCStatus(rawValue: 0x3303)
    /// The document is not at the expected version. Details: `VersionMismatchDetails`.
    public static let versionMismatch = RPCStatus(rawValue: 0x3304)
    /// The page size asked for is over the server's cap. Details: none (the message names the cap).
    public static let pageSizeTooLarge = RPCStatus(rawValue: 0x3305)
    /// The cursor was not made by this method (or for this collection). Details: none.
    public static let invalidCursor = RPCStatus(rawValue: 0x3306)
    /// A merge whose source and target are the same uid. Details: none.
    public static let mergeIntoSelf = RPCStatus(rawValue: 0x3307)
    /// The op id was already used for another (from, to, policy), or (`putOnce`, `lookupPut`) for another write.
    /// Details: none.
    public static let opConflict = RPCStatus(rawValue: 0x3308)
    /// The uid was merged into an account (or is being merged): it takes no more writes and cannot be merged
    /// elsewhere or merged into. Details: none.
    public static let uidMerged = RPCStatus(rawValue: 0x3309)
    /// Everything of the uid was deleted (or is being deleted): it takes no more writes, and no merge into it or
    /// from it, until the deletion's tombstone expires (`deletionTombstoneLifetime`). Details: none.
    public static let uidDeleted = RPCStatus(rawValue: 0x330A)

    /// Every status above, for documentation and logs.
    public static let all: [RPCStatus] = [
        invalidKey, invalidCollection, valueTooLarge, versionMismatch, pageSizeTooLarge, invalidCursor,
        mergeIntoSelf, opConflict, uidMerged, uidDeleted,
    ]

    /// The status's name as the README spells it (`version-mismatch`), or `nil` for another service's status.
    public static func name(of status: RPCStatus) -> String? {
        switch status {
        case invalidKey: "invalid-key"
        case invalidCollection: "invalid-collection"
        case valueTooLarge: "value-too-large"
        case versionMismatch: "version-mismatch"
        case pageSizeTooLarge: "page-size-too-large"
        case invalidCursor: "invalid-cursor"
        case mergeIntoSelf: "merge-into-self"
        case opConflict: "op-conflict"
        case uidMerged: "uid-merged"
        case uidDeleted: "uid-deleted"
        default: nil
        }
    }
}
