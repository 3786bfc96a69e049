import Atomics
import FoyerWire
import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import NIOSSL

/// One open, handshaken connection to an upstream, usable from any task.
final class ClientConnection: Sendable {
    let gauge: ConnectionGauge
    let maxInFlight: Int
    private let channel: any Channel
    private let handler: NIOLoopBound<ClientConnectionHandler>
    private let compression: Bool
    private let compressionThreshold: Int
    private let compressionCodec: LZ4BlockCodec
    private let requestBodyByteCountMax: Int
    private let responseBodyByteCountMax: Int
    /// Whether the server announced trace context in its HELLO_ACK (protocol 1.1): only then may a REQUEST carry one.
    let acceptsTraceContext: Bool
    private let nextID = ManagedAtomic<UInt32>(0)
    private let submissions = NIOLockedValueBox(Submissions())

    /// Calls waiting for the event loop: one hop starts a whole batch.
    private struct Submissions {
        var calls: [Submission] = []
        var drainScheduled = false
    }

    private struct Submission {
        let id: UInt32
        let bytes: ByteBuffer
        let deadline: NIODeadline
        let continuation: CheckedContinuation<Frame, any Error>
    }

    private init(
        channel: any Channel,
        handler: NIOLoopBound<ClientConnectionHandler>,
        gauge: ConnectionGauge,
        ack: HelloAck,
        configuration: RPCClientConfiguration
    ) {
        self.channel = channel
        self.handler = handler
        self.gauge = gauge
        self.maxInFlight = Int(ack.maxInFlight)
        self.compression = !ack.compression.isEmpty
        self.compressionThreshold = Int(ack.compressionThreshold)
        self.compressionCodec = configuration.compressionCodec
        self.requestBodyByteCountMax = Int(ack.frameLengthMax) - FrameHeader.lengthCoveredByteCount
        self.responseBodyByteCountMax = Int(configuration.frameLengthMax) - FrameHeader.lengthCoveredByteCount
        self.acceptsTraceContext = ack.features?.contains(.traceContext) ?? false
    }

    /// Connects (through TLS with `tls`, the context built from `configuration.tls`), sends the preface and HELLO,
    /// and waits for a valid HELLO_ACK.
    static func connect(
        configuration: RPCClientConfiguration,
        authenticator: HandshakeAuthenticator?,
        tls: NIOSSLContext?,
        eventLoop: any EventLoop
    ) async throws -> ClientConnection {
        var hello = Hello(
            frameLengthMax: configuration.frameLengthMax,
            maxInFlight: configuration.maxInFlightPerConnection,
            compression: configuration.compressionEnabled ? .lz4 : [],
            peerName: configuration.peerName,
            service: configuration.serviceName
        )
        authenticator?.sign(&hello)
        let handshake = eventLoop.makePromise(of: HelloAck.self)
        let gauge = ConnectionGauge()
        let signedHello = hello
        let channel: any Channel
        do {
            channel = try await ClientBootstrap(group: eventLoop)
                .connectTimeout(configuration.connectTimeout)
                .channelOption(.socketOption(.tcp_nodelay), value: 1)
                .channelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        if let tls, let options = configuration.tls {
                            let handler = try NIOSSLClientHandler(
                                context: tls,
                                serverHostname: options.sniName(host: configuration.host)
                            )
                            try channel.pipeline.syncOperations.addHandler(handler)
                        }
                        let reader = FrameReader(
                            decoder: FrameDecoder(expectsPreface: false, frameLengthMax: configuration.frameLengthMax),
                            timeouts: .init(handshake: configuration.connectTimeout, slowFrame: .seconds(30))
                        )
                        let handler = ClientConnectionHandler(
                            hello: signedHello,
                            authenticator: authenticator,
                            handshakePromise: handshake,
                            gauge: gauge,
                            queueMax: configuration.queuedCallsPerConnectionMax,
                            keepaliveInterval: configuration.keepaliveInterval,
                            keepaliveTimeout: configuration.keepaliveTimeout
                        )
                        try channel.pipeline.syncOperations.addHandlers([reader, handler])
                    }
                }
                .connect(host: configuration.host, port: configuration.port)
                .get()
        } catch {
            handshake.fail(error)
            throw RPCError(
                .unavailable,
                "cannot connect to \(configuration.serviceName) at \(configuration.host):\(configuration.port): \(error)"
            )
        }
        let ack: HelloAck
        do {
            ack = try await handshake.futureResult.get()
        } catch {
            channel.close(promise: nil)
            throw error
        }
        let handler = try await channel.eventLoop.submit {
            NIOLoopBound(
                try channel.pipeline.syncOperations.handler(type: ClientConnectionHandler.self),
                eventLoop: channel.eventLoop
            )
        }.get()
        return ClientConnection(
            channel: channel,
            handler: handler,
            gauge: gauge,
            ack: ack,
            configuration: configuration
        )
    }

    /// Sends one request and waits for its answer (a RESPONSE body, or the ERROR as `RPCError`). `traceContext` goes
    /// in front of the body if the server accepts one, and is left out otherwise.
    func call(
        method: UInt16,
        body: ByteBuffer,
        idempotent: Bool,
        deadline: NIODeadline,
        traceContext: TraceContext? = nil
    ) async throws -> ByteBuffer {
        let remaining = deadline - .now()
        guard remaining > .zero else { throw RPCError.deadlineExceeded() }
        var frame = Frame.request(
            id: allocateID(),
            method: method,
            deadlineMicroseconds: UInt32(clamping: max(remaining.nanoseconds / 1000, 1)),
            idempotent: idempotent,
            body: body
        )
        // The server bounds the expanded body too, so the limit applies before compression (and before the trace
        // context, which a body at the limit goes without rather than failing).
        guard body.readableBytes <= requestBodyByteCountMax else {
            throw RPCError(.invalidArgument, "request body of \(body.readableBytes) bytes is over the server's limit")
        }
        if compression {
            frame = frame.compressed(
                threshold: compressionThreshold,
                codec: compressionCodec,
                allocator: channel.allocator
            )
        }
        if let traceContext, acceptsTraceContext,
            frame.body.readableBytes + TraceContext.byteCount <= requestBodyByteCountMax
        {
            frame = frame.addingTraceContext(traceContext, allocator: channel.allocator)
        }
        var bytes = channel.allocator.buffer(capacity: FrameHeader.byteCount + frame.body.readableBytes)
        frame.encode(into: &bytes)
        let answer = try await exchange(id: frame.id, bytes: bytes, deadline: deadline)
        if answer.type == .error { throw RPCError(frame: answer) }
        do {
            return try answer.decompressed(
                compressionNegotiated: compression,
                maxUncompressedBytes: responseBodyByteCountMax,
                codec: compressionCodec,
                allocator: channel.allocator
            ).body
        } catch {
            throw RPCError(.internal, "unreadable answer: \(error)")
        }
    }

    private func exchange(id: UInt32, bytes: ByteBuffer, deadline: NIODeadline) async throws -> Frame {
        let handler = self.handler
        let eventLoop = channel.eventLoop
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Frame, any Error>) in
                if Task.isCancelled { return continuation.resume(throwing: RPCError.cancelled()) }
                submit(Submission(id: id, bytes: bytes, deadline: deadline, continuation: continuation))
            }
        } onCancel: {
            eventLoop.execute { handler.value.stop(id: id, error: .cancelled()) }
        }
    }

    private func submit(_ submission: Submission) {
        let scheduleDrain = submissions.withLockedValue { queue in
            queue.calls.append(submission)
            guard !queue.drainScheduled else { return false }
            queue.drainScheduled = true
            return true
        }
        guard scheduleDrain else { return }
        let handler = self.handler
        channel.eventLoop.execute {
            let batch = self.submissions.withLockedValue { queue in
                queue.drainScheduled = false
                defer { queue.calls.removeAll(keepingCapacity: true) }
                return queue.calls
            }
            for call in batch {
                handler.value.start(
                    id: call.id,
                    bytes: call.bytes,
                    deadline: call.deadline,
                    continuation: call.continuation
                )
            }
        }
    }

    /// Call ids go up by one, wrapping and skipping 0.
    private func allocateID() -> UInt32 {
        while true {
            let id = nextID.wrappingIncrementThenLoad(by: 1, ordering: .relaxed)
            if id != 0 { return id }
        }
    }

    /// GOAWAY, then close once every answer is in.
    func closeGracefully() {
        let handler = self.handler
        channel.eventLoop.execute { handler.value.closeGracefully() }
    }

    var closeFuture: EventLoopFuture<Void> { channel.closeFuture }
}
