import FoyerAPI
import FoyerRPC
import FoyerWire
import NIOCore

/// Why the store refused a request. Only `rpcError` turns it into a wire status (`UserDataHandlers`).
struct UserDataError: RPCStatusMapping, CustomStringConvertible {
    enum Code: Hashable, Sendable {
        case invalidArgument, invalidKey, invalidCollection, valueTooLarge, versionMismatch, pageSizeTooLarge
        case invalidCursor, mergeIntoSelf, opConflict, uidMerged, uidDeleted
    }

    let code: Code
    let message: String
    var details: ByteBuffer = ByteBuffer()

    var description: String { "\(code): \(message)" }

    static func invalidArgument(_ message: String) -> Self { Self(code: .invalidArgument, message: message) }
    static let invalidKey = Self(
        code: .invalidKey,
        message: "a key is 1-\(UserDataLimits.keyByteCountMax) bytes of UTF-8 without control characters"
    )
    static let invalidCollection = Self(
        code: .invalidCollection,
        message: "a collection is 1-\(UserDataLimits.collectionByteCountMax) bytes of A-Z a-z 0-9 _ . -"
    )
    static func valueTooLarge(size: Int, limit: Int) -> Self {
        Self(
            code: .valueTooLarge,
            message: "the value has \(size) bytes; the limit is \(limit)",
            details: ValueTooLargeDetails(size: UInt64(size), limit: UInt64(limit)).encoded()
        )
    }
    static func versionMismatch(current: Int64) -> Self {
        Self(
            code: .versionMismatch,
            message: current == 0 ? "the document does not exist" : "the document is at version \(current)",
            details: VersionMismatchDetails(currentVersion: UInt64(max(0, current))).encoded()
        )
    }
    static func pageSizeTooLarge(_ asked: UInt64, max: Int) -> Self {
        Self(code: .pageSizeTooLarge, message: "page size \(asked) is over the cap of \(max)")
    }
    static let invalidCursor = Self(
        code: .invalidCursor,
        message: "the cursor was not made by this method for this request"
    )
    static let mergeIntoSelf = Self(code: .mergeIntoSelf, message: "a merge needs two different uids")
    static func opConflict(_ message: String) -> Self { Self(code: .opConflict, message: message) }
    static func uidMerged(_ message: String) -> Self { Self(code: .uidMerged, message: message) }
    static func uidDeleted(_ message: String) -> Self { Self(code: .uidDeleted, message: message) }

    /// The wire form: the one place where user-data's refusals become statuses.
    var rpcError: RPCError {
        let status: RPCStatus =
            switch code {
            case .invalidArgument: .invalidArgument
            case .invalidKey: UserDataStatus.invalidKey
            case .invalidCollection: UserDataStatus.invalidCollection
            case .valueTooLarge: UserDataStatus.valueTooLarge
            case .versionMismatch: UserDataStatus.versionMismatch
            case .pageSizeTooLarge: UserDataStatus.pageSizeTooLarge
            case .invalidCursor: UserDataStatus.invalidCursor
            case .mergeIntoSelf: UserDataStatus.mergeIntoSelf
            case .opConflict: UserDataStatus.opConflict
            case .uidMerged: UserDataStatus.uidMerged
            case .uidDeleted: UserDataStatus.uidDeleted
            }
        return RPCError(status, message, details: details)
    }
}
