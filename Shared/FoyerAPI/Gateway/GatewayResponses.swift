public import FoyerWire
public import NIOCore

/// How a `link` or `resolveConflict` ended (`u8`).
public enum LinkOutcome: UInt8, Sendable, CaseIterable {
    /// The credential was new: the caller's account now has it (a guest became a member, same uid).
    case linked = 0
    /// The credential was another account's: its session is returned and the guest's data was merged into it.
    case merged = 1
    /// The credential was another account's: its session is returned and the guest was deleted with its data.
    case discarded = 2
}

/// The answer of `link` and `resolveConflict`:
/// ```
/// u8                   outcome       LinkOutcome
/// SessionTokens        session       the session to use from now on (the caller's, or the other account's)
/// optional MergeReport mergeReport   with `merged`: what moved and how each collision was resolved
/// ```
public struct LinkResult: WireMessage, Hashable {
    public var outcome: LinkOutcome
    public var session: SessionTokens
    public var mergeReport: MergeReport?

    public init(outcome: LinkOutcome, session: SessionTokens, mergeReport: MergeReport? = nil) {
        self.outcome = outcome
        self.session = session
        self.mergeReport = mergeReport
    }

    public init(from buffer: inout ByteBuffer) throws(WireError) {
        outcome = try buffer.readEnum(LinkOutcome.self, "link.outcome")
        session = try SessionTokens(from: &buffer)
        mergeReport = try buffer.readOptional { (buffer) throws(WireError) in try MergeReport(from: &buffer) }
    }

    public func encode(into buffer: inout ByteBuffer) {
        buffer.writeInteger(outcome.rawValue)
        session.encode(into: &buffer)
        buffer.writeOptional(mergeReport) { $1.encode(into: &$0) }
    }
}

/// `me`: identity's `UserInfo` (uid, guest or member, email, providers…) and guest-quota's usage.
public struct MeResponse: WireMessage, Hashable {
    public var user: UserInfo
    public var usage: QuotaUsageResponse

    public init(user: UserInfo, usage: QuotaUsageResponse) {
        self.user = user
        self.usage = usage
    }

    public init(from buffer: inout ByteBuffer) throws(WireError) {
        user = try UserInfo(from: &buffer)
        usage = try QuotaUsageResponse(from: &buffer)
    }

    public func encode(into buffer: inout ByteBuffer) {
        user.encode(into: &buffer)
        usage.encode(into: &buffer)
    }
}

/// `signOut`: `bool accountDeleted` — true for a guest, whose sign-out deletes it with everything.
public struct SignOutResponse: WireMessage, Hashable {
    public var accountDeleted: Bool

    public init(accountDeleted: Bool) { self.accountDeleted = accountDeleted }

    public init(from buffer: inout ByteBuffer) throws(WireError) { accountDeleted = try buffer.readBool() }

    public func encode(into buffer: inout ByteBuffer) { buffer.writeBool(accountDeleted) }
}

/// `deleteAccount`: `varint documentsDeleted` — over every attempt under the operation id.
public struct DeletionReport: WireMessage, Hashable {
    public var documentsDeleted: UInt64

    public init(documentsDeleted: UInt64) { self.documentsDeleted = documentsDeleted }

    public init(from buffer: inout ByteBuffer) throws(WireError) { documentsDeleted = try buffer.readVarint() }

    public func encode(into buffer: inout ByteBuffer) { buffer.writeVarint(documentsDeleted) }
}

/// `importDocuments`: `varint written`.
public struct ImportResponse: WireMessage, Hashable {
    public var written: UInt64

    public init(written: UInt64) { self.written = written }

    public init(from buffer: inout ByteBuffer) throws(WireError) { written = try buffer.readVarint() }

    public func encode(into buffer: inout ByteBuffer) { buffer.writeVarint(written) }
}
