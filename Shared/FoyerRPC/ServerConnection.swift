import FoyerWire
import Logging
import NIOConcurrencyHelpers
import NIOCore

/// The terms agreed in the handshake.
struct ServerSession: Sendable {
    let peerName: String
    let compression: Bool
    let compressionThreshold: Int
    let compressionCodec: LZ4BlockCodec
    /// Largest body the client accepts in an answer.
    let peerBodyByteCountMax: Int
    /// Whether requests may carry a trace context (announced in HELLO_ACK's `features`).
    let traceContext: Bool
}

/// One accepted connection: the handshake, then a loop that reads frames and runs each request as a child
/// task, answering every request exactly once. iOS 17 and later, like `RPCServer`.
@available(iOS 17, *)
final class ServerConnection: Sendable {
    private let channel: NIOAsyncChannel<Frame, ByteBuffer>
    private let writer: FrameWriter
    private let state: NIOLockedValueBox<ServerConnectionState>
    private let server: ServerCore
    private let logger: Logger
    /// The client's address from a trusted proxy's PROXY header, if the connection came through one.
    private let proxiedSource: ProxiedSource?

    init(channel: NIOAsyncChannel<Frame, ByteBuffer>, proxiedSource: ProxiedSource?, server: ServerCore) {
        self.channel = channel
        self.proxiedSource = proxiedSource
        self.writer = FrameWriter(channel: channel.channel)
        self.server = server
        self.state = NIOLockedValueBox(
            ServerConnectionState(
                pingsPerSecondMax: server.configuration.pingsPerSecondMax,
                strayCancelsPerSecondMax: server.configuration.strayCancelsPerSecondMax,
                idleTimeout: server.configuration.idleTimeout,
                now: .now()
            )
        )
        var logger = server.logger
        logger[metadataKey: "peer.address"] = "\(channel.channel.remoteAddress?.description ?? "?")"
        self.logger = logger
    }

    func run() async {
        do {
            try await channel.executeThenClose { inbound, _ in
                var frames = inbound.makeAsyncIterator()
                guard let hello = try await frames.next(), let session = try await handshake(hello) else { return }
                let sweep = startDeadlineSweep()
                defer { sweep.cancel() }
                try await withThrowingDiscardingTaskGroup { group in
                    while let frame = try await frames.next() {
                        guard try await dispatch(frame, session: session, group: &group) else { break }
                    }
                    // The peer is gone or broke the protocol: nobody will read the answers.
                    group.cancelAll()
                }
            }
        } catch {
            logger.debug("connection ended", metadata: ["error": "\(error)"])
        }
    }

    /// Sends GOAWAY(shutdown) and stops taking new requests; closes the connection after `grace`.
    func beginDraining(grace: TimeAmount) {
        guard state.withLockedValue({ $0.beginDraining() }) else { return }
        let graceMilliseconds = UInt32(clamping: grace.nanoseconds / 1_000_000)
        writer.write(
            .goAway(
                reason: .shutdown,
                graceMilliseconds: graceMilliseconds,
                body: GoAwayBody(message: "server shutting down").encoded()
            )
        )
        let channel = self.channel.channel
        channel.eventLoop.scheduleTask(in: grace) { channel.close(promise: nil) }
    }

    // MARK: Handshake

    private func handshake(_ frame: Frame) async throws -> ServerSession? {
        guard case .handshake = state.withLockedValue({ $0.received(frame.header, now: .now()) }) else {
            return close(.protocolError, "expected HELLO, got \(frame.type)")
        }
        let hello: Hello
        do {
            hello = try Hello(decoding: frame.body)
        } catch {
            return close(.protocolError, "malformed HELLO: \(error)")
        }
        let configuration = server.configuration
        if let authenticator = server.authenticator,
            case .rejected(let why) = authenticator.verify(hello)
        {
            server.handshakeRefusals.warn(
                metadata: [
                    "reason": "\(why)",
                    "peer.name": "\(hello.peerName)",
                    "peer.address": "\((proxiedSource?.address ?? channel.channel.remoteAddress)?.description ?? "?")",
                ]
            )
            return close(.authenticationFailed, why)
        }
        guard hello.service.isEmpty || hello.service == configuration.serviceName else {
            return close(.authenticationFailed, "this is \(configuration.serviceName), not \(hello.service)")
        }
        let compression = configuration.compressionEnabled && hello.compression.contains(.lz4)
        let maxInFlight = min(hello.maxInFlight, configuration.maxInFlightPerConnection)
        let features = try await features(for: channel.channel)
        var ack = HelloAck(
            frameLengthMax: configuration.frameLengthMax,
            maxInFlight: maxInFlight,
            compression: compression ? .lz4 : [],
            compressionThreshold: UInt32(clamping: configuration.compressionThreshold),
            idleTimeoutMilliseconds: UInt32(clamping: configuration.idleTimeout.nanoseconds / 1_000_000),
            serverName: configuration.serviceName,
            features: features.isEmpty ? nil : features
        )
        if let authenticator = server.authenticator, let proof = hello.proof {
            authenticator.sign(&ack, clientNonce: proof.nonce)
        }
        state.withLockedValue { $0.opened(maxInFlight: Int(maxInFlight), now: .now()) }
        // Tell the reader first: anything the client sends before this HELLO_ACK is out is a violation.
        try await channel.channel.triggerUserOutboundEvent(FrameReader.HandshakeCompleted()).get()
        writer.write(Frame(header: FrameHeader(type: .helloAck), body: ack.encoded()))
        if server.isDraining { beginDraining(grace: configuration.drainTimeout) }
        return ServerSession(
            peerName: hello.peerName,
            compression: compression,
            compressionThreshold: configuration.compressionThreshold,
            compressionCodec: configuration.compressionCodec,
            peerBodyByteCountMax: Int(hello.frameLengthMax) - FrameHeader.lengthCoveredByteCount,
            traceContext: features.contains(.traceContext)
        )
    }

    /// The features to announce in HELLO_ACK: trace context when tracing is on, the server continues its callers'
    /// contexts, and the client's preface says 1.1 or
    /// later (an older client would refuse the extra byte); none otherwise, and then the ack is 1.0's.
    private func features(for channel: any Channel) async throws -> HelloFeatures {
        guard server.tracing.isEnabled, server.tracing.continuesCallerContext else { return [] }
        let minor = try await channel.eventLoop.submit {
            try channel.pipeline.syncOperations.handler(type: FrameReader.self).prefaceMinor
        }.get()
        return (minor ?? 0) >= Preface.featuresMinor ? .traceContext : []
    }

    // MARK: Frames

    /// Handles one frame; returns `false` when the connection must end.
    private func dispatch(
        _ frame: Frame,
        session: ServerSession,
        group: inout ThrowingDiscardingTaskGroup<any Error>
    ) async throws -> Bool {
        let deadline =
            frame.header.type == .request && frame.header.aux != 0
            ? NIODeadline.now() + .microseconds(Int64(frame.header.aux)) : nil
        switch state.withLockedValue({ $0.received(frame.header, now: .now(), deadline: deadline) }) {
        case .dispatch:
            let request: Frame
            let traceContext: TraceContext?
            do {
                let (stripped, context) = try frame.removingTraceContext(negotiated: session.traceContext)
                traceContext = context
                request = try stripped.decompressed(
                    compressionNegotiated: session.compression,
                    maxUncompressedBytes: Int(server.configuration.frameLengthMax) - FrameHeader.lengthCoveredByteCount,
                    codec: session.compressionCodec,
                    allocator: channel.channel.allocator
                )
            } catch {
                _ = close(error.goAwayReason, error.detail)
                return false
            }
            try await server.requestPermits.acquire()
            group.addTask {
                await self.serve(request, deadline: deadline, traceContext: traceContext, session: session)
            }
        case .reject(let status, let message):
            writer.write(RPCError(status, message).frame(id: frame.id, allocator: channel.channel.allocator))
        case .pong:
            writer.write(.pong(id: frame.id))
        case .ignore:
            break
        case .handshake:
            preconditionFailure("handshake after open is answered .close")
        case .close(let reason, let message):
            _ = close(reason, message)
            return false
        }
        return true
    }

    /// Checks the deadlines of the calls in flight, and whether the connection is idle, every 10 ms on the
    /// connection's event loop.
    private func startDeadlineSweep() -> RepeatedTask {
        channel.channel.eventLoop.scheduleRepeatedTask(initialDelay: .milliseconds(10), delay: .milliseconds(10)) {
            [self] _ in
            let now = NIODeadline.now()
            let sending = !channel.channel.isWritable
            let idle = self.state.withLockedValue { state in
                state.expireDeadlines(now: now)
                return state.idleExpired(now: now, sending: sending)
            }
            if idle { _ = close(.idleTimeout, "connection idle") }
        }
    }

    /// Runs one request and writes its one answer, and records the call (``RPCMetrics``) inside a server span
    /// (``RPCTracing``), the child of the caller's `traceContext`.
    private func serve(
        _ request: Frame,
        deadline: NIODeadline?,
        traceContext: TraceContext?,
        session: ServerSession
    ) async {
        defer { server.requestPermits.release() }
        let started = ContinuousClock.now
        let method = server.router.route(for: request.header.code)?.name ?? "unknown"
        let answer = await server.tracing.withServerSpan(
            method: method,
            service: server.configuration.serviceName,
            incoming: traceContext
        ) {
            await self.answer(request, deadline: deadline, session: session)
        }
        writer.write(answer)
        server.metrics.served(
            service: server.configuration.serviceName,
            method: method,
            status: answer.type == .error ? RPCStatus(rawValue: answer.header.code) : nil,
            duration: ContinuousClock.now - started
        )
    }

    /// Runs the handler and makes the one answer to `request`; frees its id.
    private func answer(_ request: Frame, deadline: NIODeadline?, session: ServerSession) async -> Frame {
        let id = request.id
        let context = RPCContext(
            method: request.header.code,
            callID: id,
            deadline: deadline,
            peerAddress: proxiedSource?.address ?? channel.channel.remoteAddress,
            peerName: session.peerName,
            isIdempotent: request.header.flags.contains(.idempotent),
            logger: logger,
            allocator: channel.channel.allocator
        )
        var answer: Frame
        do {
            guard let route = server.router.route(for: request.header.code) else {
                throw RPCError(
                    .unimplemented,
                    "no method 0x\(String(request.header.code, radix: 16)) on \(server.configuration.serviceName)"
                )
            }
            let body = try await runRegistered(id: id) { try await route.handler(request.body, context) }
            answer = Frame.response(id: id, body: body)
            if answer.body.readableBytes > session.peerBodyByteCountMax {
                answer = RPCError(.internal, "the answer is larger than the client accepts")
                    .frame(id: id, allocator: channel.channel.allocator)
            } else if session.compression {
                answer = answer.compressed(
                    threshold: session.compressionThreshold,
                    codec: session.compressionCodec,
                    allocator: channel.channel.allocator
                )
            }
        } catch {
            answer = errorAnswer(for: error, id: id, method: request.header.code)
        }
        // Free the id before the answer leaves, so the client may reuse it as soon as it reads the answer.
        let record = state.withLockedValue { $0.finish(id: id) }
        if case .error = answer.type, let reason = record?.stopReason {
            answer = RPCError(reason, reason == .deadlineExceeded ? "the deadline passed" : "cancelled by the client")
                .frame(id: id, allocator: channel.channel.allocator)
        }
        return answer
    }

    private func runRegistered<T>(id: UInt32, _ body: () async throws -> T) async throws -> T {
        withUnsafeCurrentTask { task in
            // The record holding the task is removed by this same task (`finish`) before it ends, under the
            // lock every `cancel()` on it takes, so the reference never outlives the task.
            guard let task else { return }
            state.withLockedValue { $0.register(task: task, for: id) }
        }
        return try await body()
    }

    /// The one place where a handler's error becomes a wire status.
    private func errorAnswer(for error: any Error, id: UInt32, method: UInt16) -> Frame {
        let rpcError: RPCError
        switch error {
        case let error as RPCError:
            rpcError = error
        case is CancellationError:
            rpcError = .cancelled()
        case let error as any RPCStatusMapping:
            // A refusal that knows its status but was not mapped by its handler (e.g. the storage layer's).
            rpcError = error.rpcError
        default:
            logger.error(
                "handler failed",
                metadata: ["rpc.method": "0x\(String(method, radix: 16))", "error": "\(String(reflecting: error))"]
            )
            rpcError = RPCError(.internal, "internal error")
        }
        return rpcError.frame(id: id, allocator: channel.channel.allocator)
    }

    /// Writes GOAWAY and closes; returns `nil` so handshake paths can `return close(...)`.
    private func close(_ reason: GoAwayReason, _ message: String) -> ServerSession? {
        logger.debug("closing connection", metadata: ["goaway.reason": "\(reason)", "goaway.message": "\(message)"])
        writer.writeAndClose(.goAway(reason: reason, body: GoAwayBody(message: message).encoded()))
        return nil
    }
}
