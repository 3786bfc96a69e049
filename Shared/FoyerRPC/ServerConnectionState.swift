import FoyerWire
import NIOCore

/// The rules of one server-side connection, without I/O: which frame may come when, which calls are in
/// flight, when a peer is flooding, and when the connection is idle. `ServerConnection` feeds it frames and
/// carries out its answers.
///
/// Idle means: no call in flight, no answer still being sent, and no REQUEST or CANCEL received for `idleTimeout`.
/// PING and PONG do not count, so a peer that only pings is closed like one that sends nothing.
struct ServerConnectionState: Sendable {
    enum Phase: Equatable {
        case awaitingHello
        case open
        case draining
    }

    struct InFlight: Sendable {
        /// The handler's task, once it runs. Only touched under the connection's lock, and removed by the task
        /// itself before it ends, so a stored task is always alive.
        var task: HandlerTask?
        /// Why the call was stopped early, if it was.
        var stopReason: RPCStatus?
        /// When the client stops waiting (from the request's `aux`), if it said.
        var deadline: NIODeadline?
    }

    enum Action: Equatable {
        /// The first frame is a HELLO: run the handshake.
        case handshake
        /// A request to run; it is now in flight.
        case dispatch
        /// Answer the request with an ERROR of this status, without running it.
        case reject(RPCStatus, String)
        /// Answer PING with PONG.
        case pong
        /// Nothing to do.
        case ignore
        /// Send GOAWAY with this reason and close.
        case close(GoAwayReason, String)
    }

    private(set) var phase: Phase = .awaitingHello
    private(set) var maxInFlight = 0
    private(set) var inFlight: [UInt32: InFlight] = [:]
    /// The earliest deadline among calls in flight (possibly of a call already answered): sweeps before it are free.
    private var nextDeadline: NIODeadline?
    private var pings: TokenBucket
    private var strayCancels: TokenBucket
    private let idleTimeout: TimeAmount
    /// The last time the connection did work: a REQUEST or CANCEL arrived, or a sweep saw calls in flight.
    private var lastWork: NIODeadline
    private var idleReported = false

    init(pingsPerSecondMax: Int, strayCancelsPerSecondMax: Int, idleTimeout: TimeAmount, now: NIODeadline) {
        self.idleTimeout = idleTimeout
        self.lastWork = now
        pings = TokenBucket(ratePerSecond: pingsPerSecondMax, burst: pingsPerSecondMax * 10, now: now)
        strayCancels = TokenBucket(
            ratePerSecond: strayCancelsPerSecondMax,
            burst: strayCancelsPerSecondMax * 10,
            now: now
        )
    }

    // MARK: Frames from the peer

    /// - Parameter deadline: for a request, when its client stops waiting (`aux`), if it said.
    mutating func received(
        _ header: FrameHeader,
        now: @autoclosure () -> NIODeadline,
        deadline: NIODeadline? = nil
    ) -> Action {
        switch (phase, header.type) {
        case (.awaitingHello, .hello):
            return .handshake
        case (.awaitingHello, let type):
            return .close(.protocolError, "expected HELLO, got \(type)")
        case (_, .hello):
            return .close(.protocolError, "HELLO sent twice")
        case (_, .request):
            lastWork = now()
            return receivedRequest(id: header.id, deadline: deadline)
        case (_, .cancel):
            let now = now()
            lastWork = now
            return receivedCancel(id: header.id, now: now)
        case (_, .ping):
            return pings.take(now: now()) ? .pong : .close(.flood, "too many PING frames")
        case (_, .pong), (_, .goAway):
            // A client's GOAWAY says it sends no more requests; it closes once its answers are in.
            return .ignore
        case (_, let type):
            return .close(.protocolError, "a client may not send \(type)")
        }
    }

    private mutating func receivedRequest(id: UInt32, deadline: NIODeadline?) -> Action {
        guard id != 0 else { return .close(.protocolError, "request id 0 is reserved") }
        guard inFlight[id] == nil else { return .close(.protocolError, "request id \(id) is already in flight") }
        if phase == .draining { return .reject(.unavailable, "the server is shutting down; send the call elsewhere") }
        guard inFlight.count < maxInFlight else {
            return .reject(.overloaded, "more than the \(maxInFlight) requests in flight agreed for this connection")
        }
        inFlight[id] = InFlight(deadline: deadline)
        if let deadline { nextDeadline = min(nextDeadline ?? deadline, deadline) }
        return .dispatch
    }

    private mutating func receivedCancel(id: UInt32, now: NIODeadline) -> Action {
        if let call = inFlight[id], call.stopReason == nil {
            stop(id: id, reason: .cancelled)
            return .ignore
        }
        // A CANCEL that crossed its answer (or repeats one) is normal; a stream of them is not.
        return strayCancels.take(now: now) ? .ignore : .close(.flood, "too many CANCEL frames for unknown calls")
    }

    // MARK: Connection events

    mutating func opened(maxInFlight: Int, now: NIODeadline) {
        precondition(phase == .awaitingHello, "opened twice")
        self.maxInFlight = maxInFlight
        lastWork = now
        phase = .open
    }

    /// Whether the connection has been idle for `idleTimeout`; `true` once, after which it is to be closed. Run
    /// periodically (with the deadline sweep). `sending`: answers are still waiting to go out (the peer is slow
    /// to read them), which is not idleness either.
    mutating func idleExpired(now: NIODeadline, sending: Bool) -> Bool {
        guard !idleReported else { return false }
        if !inFlight.isEmpty || sending {
            lastWork = now
            return false
        }
        guard now - lastWork >= idleTimeout else { return false }
        idleReported = true
        return true
    }

    /// Stops taking requests. Returns `true` if the connection was open, so a GOAWAY must be sent now; a
    /// connection still in its handshake is drained right after it (the server checks once it is open).
    mutating func beginDraining() -> Bool {
        guard phase == .open else { return false }
        phase = .draining
        return true
    }

    // MARK: Calls in flight

    /// Stops every call whose deadline has passed. Run periodically (a sweep is cheaper than a timer per call).
    mutating func expireDeadlines(now: NIODeadline) {
        guard let next = nextDeadline, next <= now else { return }
        nextDeadline = nil
        for (id, call) in inFlight {
            guard let deadline = call.deadline, call.stopReason == nil else { continue }
            if deadline <= now {
                stop(id: id, reason: .deadlineExceeded)
            } else {
                nextDeadline = min(nextDeadline ?? deadline, deadline)
            }
        }
    }

    /// Records the handler's task; if the call was stopped before it started, cancels it at once.
    mutating func register(task: UnsafeCurrentTask, for id: UInt32) {
        guard inFlight[id] != nil else { return }
        inFlight[id]!.task = HandlerTask(task: task)
        if inFlight[id]!.stopReason != nil { task.cancel() }
    }

    /// Stops a call early (CANCEL from the client, or its deadline): the handler's task is cancelled.
    mutating func stop(id: UInt32, reason: RPCStatus) {
        guard inFlight[id] != nil, inFlight[id]!.stopReason == nil else { return }
        inFlight[id]!.stopReason = reason
        inFlight[id]!.task?.task.cancel()
    }

    /// The call is answered: its id is free again. Returns its record, for the stop reason and the timer.
    mutating func finish(id: UInt32) -> InFlight? {
        inFlight.removeValue(forKey: id)
    }
}

extension ServerConnectionState.Action {
    static func == (lhs: Self, rhs: Self) -> Bool {
        switch (lhs, rhs) {
        case (.handshake, .handshake), (.dispatch, .dispatch), (.pong, .pong), (.ignore, .ignore): true
        case let (.reject(a, _), .reject(b, _)): a == b
        case let (.close(a, _), .close(b, _)): a == b
        default: false
        }
    }
}

/// The task running a handler, kept so CANCEL and deadlines can cancel it.
/// `@unchecked Sendable`: only used under the connection's lock, and dropped (`finish`) by the task itself
/// under that lock before it ends, so it is never used after the task is gone.
struct HandlerTask: @unchecked Sendable {
    let task: UnsafeCurrentTask
}
