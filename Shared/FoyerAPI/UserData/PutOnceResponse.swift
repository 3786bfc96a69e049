public import FoyerWire
public import NIOCore

/// What a `putOnce` did: the write this op made, now or before, or else nothing, because the document is no longer
/// the `base` the caller charged against.
///
/// ```
/// u8  outcome   0 written: this attempt's write (also when answered again to a retry of it)
///               1 replayed: another attempt (another `attempt` id) made the op's write; this call wrote nothing
///               2 found: nothing written, the document differs from `base`
/// then for 0 and 1, PutDocumentResponse (varint version, i64 updatedAtMicroseconds): the op's write
///      for 2, PutBase: the document as it stands (version 0: there is none)
/// ```
public enum PutOnceResponse: WireMessage, Hashable {
    case written(PutDocumentResponse)
    case replayed(PutDocumentResponse)
    case found(PutBase)

    public init(from buffer: inout ByteBuffer) throws(WireError) {
        switch try buffer.readWire(UInt8.self) {
        case 0: self = .written(try PutDocumentResponse(from: &buffer))
        case 1: self = .replayed(try PutDocumentResponse(from: &buffer))
        case 2: self = .found(try PutBase(from: &buffer))
        default: throw .invalidValue("putOnce.outcome")
        }
    }

    public func encode(into buffer: inout ByteBuffer) {
        switch self {
        case .written(let result):
            buffer.writeInteger(UInt8(0))
            result.encode(into: &buffer)
        case .replayed(let result):
            buffer.writeInteger(UInt8(1))
            result.encode(into: &buffer)
        case .found(let base):
            buffer.writeInteger(UInt8(2))
            base.encode(into: &buffer)
        }
    }
}
