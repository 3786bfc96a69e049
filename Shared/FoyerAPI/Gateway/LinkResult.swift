public import FoyerWire
public import NIOCore

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
