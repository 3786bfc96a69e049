public import FoyerWire

/// Where an event stands in its delivery to the app's webhook endpoints (one byte on the wire).
public enum EventState: UInt8, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// Not delivered yet: due now or at its next attempt (a replayed event is pending again).
    case pending = 0
    /// Every endpoint answered 2xx.
    case delivered = 1
    /// Its attempts ran out; kept for a replay until the retention removes it.
    case failed = 2

    public var description: String {
        switch self {
        case .pending: "pending"
        case .delivered: "delivered"
        case .failed: "failed"
        }
    }

    /// The state named `text` (its `description`), or nil.
    public init?(name text: String) {
        guard let state = Self.allCases.first(where: { $0.description == text }) else { return nil }
        self = state
    }
}
