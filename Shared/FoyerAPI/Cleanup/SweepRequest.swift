public import FoyerWire
public import NIOCore

/// `sweep`: `bool dryRun`.
public struct SweepRequest: WireMessage, Hashable {
    public var dryRun: Bool

    public init(dryRun: Bool) { self.dryRun = dryRun }

    public init(from buffer: inout ByteBuffer) throws(WireError) { dryRun = try buffer.readBool() }

    public func encode(into buffer: inout ByteBuffer) { buffer.writeBool(dryRun) }
}
