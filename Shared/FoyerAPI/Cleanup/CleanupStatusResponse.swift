public import FoyerWire
public import NIOCore

/// `status`: `bool running`, `optional SweepReport lastSweep` (the last finished, non-dry sweep of this replica).
public struct CleanupStatusResponse: WireMessage, Hashable {
    public var running: Bool
    public var lastSweep: SweepReport?

    public init(running: Bool, lastSweep: SweepReport?) {
        self.running = running
        self.lastSweep = lastSweep
    }

    public init(from buffer: inout ByteBuffer) throws(WireError) {
        running = try buffer.readBool()
        lastSweep = try buffer.readOptional { (buffer) throws(WireError) in try SweepReport(from: &buffer) }
    }

    public func encode(into buffer: inout ByteBuffer) {
        buffer.writeBool(running)
        buffer.writeOptional(lastSweep) { $1.encode(into: &$0) }
    }
}
