public import FoyerWire
public import NIOCore

/// The body of a batch method: the messages of the single method it batches, for up to `countMax` users, done in
/// one transaction of the service (one commit instead of one per user). The answer lists one element per request
/// element, in the request's order.
///
/// ```
/// varint   count      1–1000 in a request, 0–1000 in an answer
/// Element  × count
/// ```
///
/// Batches exist for the inactivity clean-up, which deletes thousands of guests per sweep; the gateway's
/// operations on one account use the single methods.
public struct Batch<Element: WireMessage>: WireMessage {
    /// The most elements one batch holds, whatever they are.
    public static var countMax: Int { BatchLimits.countMax }

    public var elements: [Element]

    public init(_ elements: [Element]) {
        self.elements = elements
    }

    public init(from buffer: inout ByteBuffer) throws(WireError) {
        let count = try buffer.readCount("batch.count", maxCount: Self.countMax)
        var elements: [Element] = []
        elements.reserveCapacity(count)
        for _ in 0..<count { elements.append(try Element(from: &buffer)) }
        self.elements = elements
    }

    public func encode(into buffer: inout ByteBuffer) {
        buffer.writeVarint(UInt64(elements.count))
        for element in elements { element.encode(into: &buffer) }
    }
}

/// The limits of every batch method.
public enum BatchLimits {
    /// The most elements one batch holds.
    public static let countMax = 1000
}

extension Batch: Equatable where Element: Equatable {}
extension Batch: Hashable where Element: Hashable {}

/// One element's outcome in the answer of a batch method whose single method answers `Empty` or a state: done, or
/// the status (and message) the single method would have answered for that element alone.
///
/// ```
/// u16     status    0: done (or already done); otherwise the single method's status
/// string  message   <= 512 bytes; empty when done
/// ```
public struct BatchOutcome: WireMessage, Hashable {
    public static let messageByteCountMax = 512

    /// The status, or nil when the element was done.
    public var status: RPCStatus?
    public var message: String

    public static let done = BatchOutcome(status: nil, message: "")

    public init(status: RPCStatus?, message: String) {
        self.status = status
        self.message = message
    }

    public init(from buffer: inout ByteBuffer) throws(WireError) {
        let raw = try buffer.readWire(UInt16.self)
        status = raw == 0 ? nil : RPCStatus(rawValue: raw)
        message = try buffer.readLengthPrefixedString("batch.message", maxBytes: Self.messageByteCountMax)
    }

    public func encode(into buffer: inout ByteBuffer) {
        buffer.writeInteger(status?.rawValue ?? 0)
        buffer.writeLengthPrefixedString(message, truncatingToBytes: Self.messageByteCountMax)
    }
}
