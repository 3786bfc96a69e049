import NIOConcurrencyHelpers
public import NIOCore

/// A listener's open connections under a ``ConnectionAdmission``, each with its channel, so that a newcomer admitted
/// in place of another closes that one. The binary listener (`RPCServer`) and the gateway's HTTP listeners share it.
public final class ConnectionTable: Sendable {
    private struct State {
        var admission: ConnectionAdmission
        var tickets: [ObjectIdentifier: ConnectionAdmission.Ticket] = [:]
        var channels: [ConnectionAdmission.Ticket: any Channel] = [:]

        mutating func forget(_ ticket: ConnectionAdmission.Ticket) -> (any Channel)? {
            guard let channel = channels.removeValue(forKey: ticket) else { return nil }
            tickets[ObjectIdentifier(channel)] = nil
            return channel
        }
    }

    private let state: NIOLockedValueBox<State>

    public init(admission: ConnectionAdmission) {
        state = NIOLockedValueBox(State(admission: admission))
    }

    /// Connections held, in all.
    public var count: Int { state.withLockedValue { $0.admission.count } }

    /// Admits `channel`, counted against `source` (`nil`: not known yet, or not an IP address), or says why not. A
    /// connection it displaces is closed; its `release` then does nothing.
    public func admit(_ channel: any Channel, source: IPNetwork?) -> ConnectionAdmission.Refusal? {
        let outcome = state.withLockedValue { state -> Result<(any Channel)?, ConnectionAdmission.Refusal> in
            state.admission.admit(source: source).map { admitted in
                state.tickets[ObjectIdentifier(channel)] = admitted.ticket
                state.channels[admitted.ticket] = channel
                return admitted.evicted.flatMap { state.forget($0) }
            }
        }
        switch outcome {
        case .success(let evicted):
            evicted?.close(promise: nil)
            return nil
        case .failure(let refusal):
            return refusal
        }
    }

    /// Counts the admitted `channel` against `source` from now on (the client a PROXY header names); `false`, and
    /// nothing changed, when that source is full or the channel is not admitted.
    public func move(_ channel: any Channel, to source: IPNetwork) -> Bool {
        state.withLockedValue { state in
            guard let ticket = state.tickets[ObjectIdentifier(channel)] else { return false }
            return state.admission.move(ticket, to: source)
        }
    }

    /// `channel` has closed: its place is free again. Releasing twice, or a channel never admitted, does nothing.
    public func release(_ channel: any Channel) {
        state.withLockedValue { state in
            guard let ticket = state.tickets[ObjectIdentifier(channel)] else { return }
            _ = state.forget(ticket)
            state.admission.release(ticket)
        }
    }
}
