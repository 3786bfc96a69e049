public import FoyerWire
public import NIOCore

/// The answer of `link` and `resolveConflict`:
/// ```
/// u8 outcome       LinkOutcome, then by outcome:
///   linked, discarded: SessionTokens session                      the session to use from now on
///   merged:            SessionTokens session, MergeReport report  what moved and how each collision was resolved
///   conflict:          ConflictDetails conflict                   the account holding the credential, and a ticket
/// ```
/// A conflict is an outcome, not an error: the caller chose `fail`, proved the credential, and nothing changed. The
/// caller keeps its session and decides later with `resolveConflict(ticket)`.
public enum LinkResult: WireMessage, Hashable {
    case linked(SessionTokens)
    case merged(SessionTokens, MergeReport)
    case discarded(SessionTokens)
    case conflict(ConflictDetails)

    public var outcome: LinkOutcome {
        switch self {
        case .linked: .linked
        case .merged: .merged
        case .discarded: .discarded
        case .conflict: .conflict
        }
    }

    /// The session to use from now on; nil for a conflict (the caller's own session stays).
    public var session: SessionTokens? {
        switch self {
        case .linked(let session), .merged(let session, _), .discarded(let session): session
        case .conflict: nil
        }
    }

    public var mergeReport: MergeReport? {
        if case .merged(_, let report) = self { report } else { nil }
    }

    public var conflict: ConflictDetails? {
        if case .conflict(let details) = self { details } else { nil }
    }

    public init(from buffer: inout ByteBuffer) throws(WireError) {
        switch try buffer.readEnum(LinkOutcome.self, "link.outcome") {
        case .linked: self = .linked(try SessionTokens(from: &buffer))
        case .merged: self = .merged(try SessionTokens(from: &buffer), try MergeReport(from: &buffer))
        case .discarded: self = .discarded(try SessionTokens(from: &buffer))
        case .conflict: self = .conflict(try ConflictDetails(from: &buffer))
        }
    }

    public func encode(into buffer: inout ByteBuffer) {
        buffer.writeInteger(outcome.rawValue)
        switch self {
        case .linked(let session), .discarded(let session):
            session.encode(into: &buffer)
        case .merged(let session, let report):
            session.encode(into: &buffer)
            report.encode(into: &buffer)
        case .conflict(let details):
            details.encode(into: &buffer)
        }
    }
}
