import FoyerWire
import NIOCore

/// The rules of one client-side connection, without I/O: the handshake, calls in flight matched to answers by
/// id, a local queue when the server's in-flight limit is reached, deadlines, keepalive and GOAWAY.
/// `ClientConnectionHandler` feeds it events and carries out its actions, in order; it keeps the callers'
/// continuations, which the actions name by call id.
struct ClientConnectionState {
    enum State: Equatable {
        case handshaking
        case ready
        case draining
        case closed
    }

    enum Action: Equatable {
        /// Write this control frame (PING, PONG, CANCEL, GOAWAY).
        case write(Frame)
        /// Write this encoded REQUEST.
        case send(ByteBuffer)
        /// Give the caller of call `id` its answer.
        case succeed(UInt32, Frame)
        /// Fail the caller of call `id`.
        case fail(UInt32, RPCError)
        /// The handshake is done: tell the frame reader, start the timers, complete the handshake.
        case handshakeSucceeded(HelloAck)
        /// The handshake failed with this error.
        case handshakeFailed(RPCError)
        /// Close at once.
        case close
        /// Close once everything written so far is on its way (a GOAWAY must not be dropped by the close).
        case flushAndClose
        /// Stop the keepalive and deadline timers.
        case stopTimers
    }

    /// What to do with a new call.
    enum StartAction: Equatable {
        /// Write its request now.
        case send(ByteBuffer)
        /// It waits in the local queue until the server has room.
        case queue
        /// Fail it at once; it was not recorded.
        case reject(RPCError)
    }

    struct Call {
        /// Whether the caller still waits (not stopped by a deadline or cancellation).
        var waiting = true
        var deadline: NIODeadline?
        var written = false
        /// The request, until it is written.
        var bytes: ByteBuffer?
    }

    private(set) var state = State.handshaking
    private(set) var calls: [UInt32: Call] = [:]
    private(set) var maxInFlight = 1
    private var queue = CircularBuffer<UInt32>()
    private var written = 0
    /// Whether a draining connection has been told to close (once).
    private var drainedClose = false
    private let hello: Hello
    private let authenticator: HandshakeAuthenticator?
    private let queueMax: Int
    private let keepaliveInterval: TimeAmount
    private let keepaliveTimeout: TimeAmount
    private var lastRead: NIODeadline
    private var lastCallFinished: NIODeadline
    /// When the connection last went from no calls to one: the server owes an answer from then on, so silence
    /// before it (an idle connection) does not count against the keepalive.
    private var busySince: NIODeadline
    /// When the last keepalive PING went out; answered once anything has been read after it.
    private var pingSentAt: NIODeadline?
    private var serverIdleTimeout: TimeAmount?
    /// The earliest deadline of a pending call (or of one already answered): sweeps before it are free.
    private var nextDeadline: NIODeadline?
    private var nextPingID: UInt32 = 0

    init(
        hello: Hello,
        authenticator: HandshakeAuthenticator?,
        queueMax: Int,
        keepaliveInterval: TimeAmount,
        keepaliveTimeout: TimeAmount,
        now: NIODeadline
    ) {
        self.hello = hello
        self.authenticator = authenticator
        self.queueMax = queueMax
        self.keepaliveInterval = keepaliveInterval
        self.keepaliveTimeout = keepaliveTimeout
        lastRead = now
        lastCallFinished = now
        busySince = now
    }

    /// How often to run `checkKeepalive`: several times per interval, so a timer firing a little late never
    /// turns one unanswered-looking period into a lost connection.
    var keepaliveCheckInterval: TimeAmount {
        .nanoseconds(max(min(keepaliveInterval, keepaliveTimeout).nanoseconds / 4, 10_000_000))
    }

    // MARK: Frames from the server

    mutating func received(_ frame: Frame, now: NIODeadline) -> [Action] {
        lastRead = now
        switch (state, frame.type) {
        case (.handshaking, .helloAck):
            return completeHandshake(frame)
        case (.handshaking, .goAway):
            let message = (try? GoAwayBody(decoding: frame.body))?.message ?? ""
            let reason = GoAwayReason(rawValue: frame.header.code)
            return [
                .handshakeFailed(RPCError(.unavailable, "server refused the connection (\(reason)): \(message)")),
                .close,
            ]
        case (.ready, .response), (.ready, .error), (.draining, .response), (.draining, .error):
            return answer(frame, now: now)
        case (.ready, .ping), (.draining, .ping):
            return [.write(.pong(id: frame.id))]
        case (.ready, .pong), (.draining, .pong):
            return []
        case (.ready, .goAway), (.draining, .goAway):
            return beginDraining()
        case (.closed, _):
            return []
        default:
            return protocolError("unexpected \(frame.type) frame")
        }
    }

    private mutating func completeHandshake(_ frame: Frame) -> [Action] {
        let ack: HelloAck
        do {
            ack = try HelloAck(decoding: frame.body)
        } catch {
            return protocolError("malformed HELLO_ACK: \(error)")
        }
        guard ack.compression.isSubset(of: hello.compression) else {
            return protocolError("HELLO_ACK chose a compression the client did not offer")
        }
        if let authenticator {
            guard let nonce = hello.proof?.nonce, authenticator.verify(ack, clientNonce: nonce) else {
                return [
                    .handshakeFailed(RPCError(.unavailable, "server did not prove it holds the cluster secret")),
                    .close,
                ]
            }
        }
        state = .ready
        maxInFlight = Int(ack.maxInFlight)
        serverIdleTimeout = ack.idleTimeoutMilliseconds == 0 ? nil : .milliseconds(Int64(ack.idleTimeoutMilliseconds))
        return [.handshakeSucceeded(ack)]
    }

    // MARK: Calls

    /// Starts a call whose request frame is already encoded in `bytes`.
    mutating func start(id: UInt32, bytes: ByteBuffer, deadline: NIODeadline?, now: NIODeadline) -> StartAction {
        guard state == .ready else { return .reject(RPCError(.unavailable, "connection is closing")) }
        guard calls[id] == nil else {
            return .reject(RPCError(.unavailable, "call id \(id) still in use on this connection"))
        }
        guard written < maxInFlight || queue.count < queueMax else {
            return .reject(RPCError(.overloaded, "too many calls waiting for this upstream"))
        }
        if calls.isEmpty { busySince = now }
        calls[id] = Call(deadline: deadline, bytes: bytes)
        if let deadline { nextDeadline = min(nextDeadline ?? deadline, deadline) }
        guard written < maxInFlight else {
            queue.append(id)
            return .queue
        }
        return .send(markWritten(id: id))
    }

    /// Gives up on a call (deadline or cancellation). A call already sent keeps its id until the server
    /// answers; the server is told with CANCEL.
    mutating func stop(id: UInt32, error: RPCError) -> [Action] {
        guard var call = calls[id], call.waiting else { return [] }
        call.waiting = false
        if call.written {
            calls[id] = call
            return [.write(.cancel(id: id)), .fail(id, error)] + closeIfDrained()
        }
        calls[id] = nil
        queue.removeAll { $0 == id }
        return [.fail(id, error)]
    }

    /// Fails every call whose deadline has passed with `deadlineExceeded`. Run periodically (a sweep is cheaper
    /// than a timer per call).
    mutating func expireDeadlines(now: NIODeadline) -> [Action] {
        guard let next = nextDeadline, next <= now else { return [] }
        nextDeadline = nil
        var expired: [UInt32] = []
        for (id, call) in calls where call.waiting {
            guard let deadline = call.deadline else { continue }
            if deadline <= now {
                expired.append(id)
            } else {
                nextDeadline = min(nextDeadline ?? deadline, deadline)
            }
        }
        return expired.flatMap { stop(id: $0, error: .deadlineExceeded()) }
    }

    private mutating func markWritten(id: UInt32) -> ByteBuffer {
        let bytes = calls[id]!.bytes!
        calls[id]!.bytes = nil
        calls[id]!.written = true
        written += 1
        return bytes
    }

    private mutating func answer(_ frame: Frame, now: NIODeadline) -> [Action] {
        guard let call = calls[frame.id], call.written else {
            return protocolError("answer for call \(frame.id), which is not in flight")
        }
        calls[frame.id] = nil
        written -= 1
        lastCallFinished = now
        var actions: [Action] = call.waiting ? [.succeed(frame.id, frame)] : []
        while written < maxInFlight, state == .ready, let next = queue.popFirst() {
            actions.append(.send(markWritten(id: next)))
        }
        return actions + closeIfDrained()
    }

    // MARK: Connection lifecycle

    private mutating func beginDraining() -> [Action] {
        guard state == .ready else { return [] }
        state = .draining
        // Queued calls were never sent: they can go to another connection.
        var actions: [Action] = []
        while let id = queue.popFirst() {
            if let call = calls.removeValue(forKey: id), call.waiting {
                actions.append(.fail(id, RPCError(.unavailable, "connection is draining")))
            }
        }
        return actions + closeIfDrained()
    }

    /// A draining connection closes once no caller waits for an answer. The answers of calls given up on (deadline,
    /// cancellation) are not waited for: no one reads them, and no new call reuses their ids here. An answer that
    /// never comes (a server's bug, or a frame lost on the way) would otherwise hold the connection open, and the
    /// client's shutdown with it, for ever.
    private mutating func closeIfDrained() -> [Action] {
        guard state == .draining, !drainedClose, !calls.values.contains(where: \.waiting) else { return [] }
        drainedClose = true
        return [.flushAndClose]
    }

    /// Asks the server to stop sending (client shutdown): GOAWAY, then close once every answer is in.
    mutating func closeGracefully() -> [Action] {
        switch state {
        case .handshaking:
            return [.close]
        case .ready:
            let goAway = Frame.goAway(reason: .shutdown, body: GoAwayBody(message: "client closing").encoded())
            return [.write(goAway)] + beginDraining()
        case .draining, .closed:
            return []
        }
    }

    /// PINGs a busy connection that has been silent for the keepalive interval, gives up on one whose PING
    /// went unanswered for the keepalive timeout, and leaves an unused one before the server's idle timeout.
    mutating func checkKeepalive(now: NIODeadline) -> [Action] {
        guard !calls.isEmpty else {
            // Leave an unused connection before the server's idle timeout does, so no call can race its GOAWAY.
            // The server's idle clock runs from its last call in flight (PINGs and PONGs do not count), which is
            // before we read the last answer, so counting from that answer is on the safe side.
            if state == .ready, let serverIdleTimeout,
                now - lastCallFinished >= .nanoseconds(serverIdleTimeout.nanoseconds * 3 / 4)
            {
                return closeGracefully()
            }
            return []
        }
        if let sent = pingSentAt, sent >= lastRead {
            // A PING is out and nothing has come back since.
            guard now - sent >= keepaliveTimeout else { return [] }
            return shutDown(reason: RPCError(.connectionLost, "server stopped answering keepalive pings")) + [.close]
        }
        guard now - max(lastRead, busySince) >= keepaliveInterval else { return [] }
        nextPingID &+= 1
        pingSentAt = now
        return [.write(.ping(id: nextPingID))]
    }

    private mutating func protocolError(_ message: String) -> [Action] {
        let goAway = Frame.goAway(reason: .protocolError, body: GoAwayBody(message: message).encoded())
        return [.write(goAway)] + shutDown(reason: RPCError(.connectionLost, "server broke the protocol: \(message)"))
            + [.flushAndClose]
    }

    /// Fails everything still waiting: sent calls as outcome unknown, unsent ones as not processed. Also what
    /// the connection going away (inactive, or an error) does.
    mutating func shutDown(reason: RPCError) -> [Action] {
        guard state != .closed else { return [] }
        var actions: [Action] = []
        if state == .handshaking { actions.append(.handshakeFailed(RPCError(.unavailable, reason.message))) }
        state = .closed
        actions.append(.stopTimers)
        let pending = calls
        calls.removeAll()
        queue.removeAll()
        for (id, call) in pending where call.waiting {
            actions.append(.fail(id, call.written ? reason : RPCError(.unavailable, reason.message)))
        }
        return actions
    }
}
