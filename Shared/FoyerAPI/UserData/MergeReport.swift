public import FoyerWire
public import NIOCore

/// What a merge did, in total over every attempt under its op id. A retry after the merge finished answers the
/// same report.
///
/// ```
/// varint               moved                documents moved to a key the account did not hold
/// varint               conflicts            keys both held
/// varint               keptAccount          conflicts where the account's document stayed
/// varint               keptGuest            conflicts where the guest's value replaced the account's
/// varint               keptBoth             conflicts where the guest's document moved to a derived key
/// list MergeConflict   listedConflicts      the first 1000 conflicts, in the order they were resolved
/// ```
/// `MergeConflict`: `string collection` (<= 64), `string key` (<= 256), `u8 resolution` (0 kept-account,
/// 1 kept-guest, 2 kept-both), `optional string derivedKey` (<= 256; with kept-both: where the guest's copy went).
public struct MergeReport: WireMessage, Hashable {
    public enum Resolution: UInt8, Sendable, Hashable {
        case keptAccount = 0
        case keptGuest = 1
        case keptBoth = 2
    }

    public struct Conflict: Sendable, Hashable {
        public var collection: String
        public var key: String
        public var resolution: Resolution
        public var derivedKey: String?

        public init(collection: String, key: String, resolution: Resolution, derivedKey: String? = nil) {
            self.collection = collection
            self.key = key
            self.resolution = resolution
            self.derivedKey = derivedKey
        }
    }

    public var moved: UInt64
    public var conflicts: UInt64
    public var keptAccount: UInt64
    public var keptGuest: UInt64
    public var keptBoth: UInt64
    public var listedConflicts: [Conflict]

    public init(
        moved: UInt64 = 0,
        conflicts: UInt64 = 0,
        keptAccount: UInt64 = 0,
        keptGuest: UInt64 = 0,
        keptBoth: UInt64 = 0,
        listedConflicts: [Conflict] = []
    ) {
        self.moved = moved
        self.conflicts = conflicts
        self.keptAccount = keptAccount
        self.keptGuest = keptGuest
        self.keptBoth = keptBoth
        self.listedConflicts = listedConflicts
    }

    public init(from buffer: inout ByteBuffer) throws(WireError) {
        moved = try buffer.readVarint()
        conflicts = try buffer.readVarint()
        keptAccount = try buffer.readVarint()
        keptGuest = try buffer.readVarint()
        keptBoth = try buffer.readVarint()
        let count = try buffer.readCount(
            "merge.listedConflicts",
            maxCount: UserDataLimits.listedConflictsMax,
            minElementBytes: 4
        )
        listedConflicts = []
        listedConflicts.reserveCapacity(count)
        for _ in 0..<count {
            let collection = try buffer.readLengthPrefixedString(
                "conflict.collection",
                maxBytes: UserDataLimits.collectionByteCountMax
            )
            let key = try buffer.readLengthPrefixedString("conflict.key", maxBytes: UserDataLimits.keyByteCountMax)
            guard let resolution = Resolution(rawValue: try buffer.readWire()) else {
                throw .invalidValue("conflict.resolution")
            }
            let derivedKey =
                try buffer.readBool()
                ? try buffer.readLengthPrefixedString("conflict.derivedKey", maxBytes: UserDataLimits.keyByteCountMax)
                : nil
            listedConflicts.append(
                Conflict(collection: collection, key: key, resolution: resolution, derivedKey: derivedKey)
            )
        }
    }

    public func encode(into buffer: inout ByteBuffer) {
        buffer.writeVarint(moved)
        buffer.writeVarint(conflicts)
        buffer.writeVarint(keptAccount)
        buffer.writeVarint(keptGuest)
        buffer.writeVarint(keptBoth)
        buffer.writeVarint(UInt64(listedConflicts.count))
        for conflict in listedConflicts {
            buffer.writeLengthPrefixedString(conflict.collection)
            buffer.writeLengthPrefixedString(conflict.key)
            buffer.writeInteger(conflict.resolution.rawValue)
            buffer.writeBool(conflict.derivedKey != nil)
            if let derivedKey = conflict.derivedKey { buffer.writeLengthPrefixedString(derivedKey) }
        }
    }
}
