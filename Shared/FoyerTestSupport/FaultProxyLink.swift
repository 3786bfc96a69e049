import NIOCore

/// One relayed connection pair of a ``FaultProxy``: the gateway's connection to the proxy and the proxy's to the
/// service. It applies the proxy's faults to whole frames handed over by the two ``FaultProxyRelay``s.
final class FaultProxyLink: @unchecked Sendable {  // used on the gateway side's event loop only (both sides share it)
    private let proxy: FaultProxy
    private let gatewaySide: any Channel
    private var serviceSide: (any Channel)?
    /// Bytes for the service that arrived before the upstream connection was up (the preface and `HELLO` at least).
    private var pending: [ByteBuffer] = []
    /// A request held back, to go after the next one, and the timer that sends it alone if none comes.
    private var held: (frame: ByteBuffer, timer: Scheduled<Void>)?
    /// The ids the proxy gave its duplicates; their answers are swallowed.
    private var proxyIDs: Set<UInt32> = []
    private var nextProxyID: UInt32 = 0x8000_0000
    private var closed = false

    /// The `type` of a `REQUEST`, `RESPONSE` and `ERROR` (docs/PROTOCOL.md, 4.1).
    static let request: UInt8 = 0x01
    static let response: UInt8 = 0x02
    static let error: UInt8 = 0x03

    init(proxy: FaultProxy, gatewaySide: any Channel) {
        self.proxy = proxy
        self.gatewaySide = gatewaySide
    }

    var frameLengthMax: Int { proxy.configuration.frameLengthMax }

    /// The upstream connection is up: what waited goes out.
    func connected(_ service: any Channel) {
        guard !closed else {
            service.close(promise: nil)
            return
        }
        serviceSide = service
        for bytes in pending { service.write(bytes, promise: nil) }
        pending = []
        service.flush()
    }

    /// Bytes from the gateway that are not a frame (the preface): relayed as they are.
    func passToService(_ bytes: ByteBuffer) {
        send(toService: bytes)
    }

    /// One whole frame from the gateway.
    func fromGateway(_ frame: ByteBuffer) {
        guard frame.getInteger(at: frame.readerIndex + 4, as: UInt8.self) == Self.request else {
            send(toService: frame)
            return
        }
        guard let faults = proxy.requestFaults() else {
            send(toService: frame)
            releaseHeld(reordered: true)
            return
        }
        if let duplicateDelay = faults.duplicateDelay { sendDuplicate(of: frame, after: duplicateDelay) }
        if faults.holdBack, held == nil {
            let timer = gatewaySide.eventLoop.scheduleTask(in: proxy.configuration.reorderHoldMax) {
                self.releaseHeld(reordered: false)
            }
            held = (frame, timer)
            return
        }
        guard let delay = faults.delay else {
            send(toService: frame)
            releaseHeld(reordered: true)
            return
        }
        // The held request stays behind this one: both go when the delay ends.
        let waiting = held
        waiting?.timer.cancel()
        held = nil
        gatewaySide.eventLoop.scheduleTask(in: delay) {
            self.send(toService: frame)
            if let waiting { self.sendHeld(waiting.frame, reordered: true) }
        }
    }

    /// One whole frame from the service.
    func fromService(_ frame: ByteBuffer) {
        let type = frame.getInteger(at: frame.readerIndex + 4, as: UInt8.self)
        guard type == Self.response || type == Self.error,
            let id = frame.getInteger(at: frame.readerIndex + 8, as: UInt32.self)
        else {
            send(toGateway: frame)
            return
        }
        if proxyIDs.remove(id) != nil {
            proxy.count { $0.swallowedDuplicateAnswers += 1 }
        } else if !proxy.dropsAnswer() {
            send(toGateway: frame)
        }
    }

    /// Closes both sides (either side closed, failed, or sent something the proxy cannot frame).
    func close() {
        guard !closed else { return }
        closed = true
        held?.timer.cancel()
        held = nil
        pending = []
        gatewaySide.close(promise: nil)
        serviceSide?.close(promise: nil)
    }

    // MARK: Sending

    private func sendDuplicate(of frame: ByteBuffer, after delay: TimeAmount) {
        nextProxyID = nextProxyID == UInt32.max ? 0x8000_0000 : nextProxyID + 1
        let id = nextProxyID
        var copy = frame
        copy.setInteger(id, at: copy.readerIndex + 8)
        proxyIDs.insert(id)
        gatewaySide.eventLoop.scheduleTask(in: delay) { self.send(toService: copy) }
    }

    private func releaseHeld(reordered: Bool) {
        guard let waiting = held else { return }
        held = nil
        waiting.timer.cancel()
        sendHeld(waiting.frame, reordered: reordered)
    }

    private func sendHeld(_ frame: ByteBuffer, reordered: Bool) {
        if reordered, !closed { proxy.count { $0.reordered += 1 } }
        send(toService: frame)
    }

    private func send(toService bytes: ByteBuffer) {
        guard !closed else { return }
        if let serviceSide {
            serviceSide.writeAndFlush(bytes, promise: nil)
        } else {
            pending.append(bytes)
        }
    }

    private func send(toGateway bytes: ByteBuffer) {
        guard !closed else { return }
        gatewaySide.writeAndFlush(bytes, promise: nil)
    }
}
