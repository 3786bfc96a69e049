public import NIOCore

/// Splits a byte stream into frames.
///
/// It reads the fixed header, returns `nil` without consuming anything while a frame is incomplete, and
/// checks the length against the limit as soon as the 4 length bytes are in, so an oversized frame is refused
/// before its body is buffered. Type and flags are checked as soon as the 16 header bytes are in.
///
/// A server-side decoder first expects the 8-byte preface. Until one frame has been decoded (the handshake:
/// `HELLO` on the server, `HELLO_ACK` on the client) a frame may be at most `handshakeFrameByteCountMax`
/// bytes including its length field.
public struct FrameDecoder: NIOSingleStepByteToMessageDecoder {
    public typealias InboundOut = Frame

    /// Largest whole frame (length field included) accepted before the handshake completes.
    public static let handshakeFrameByteCountMax = 4096

    public enum Phase: Hashable, Sendable {
        case preface
        case handshake
        case open
    }

    public private(set) var phase: Phase
    /// The minor version of the client's preface, once it has been read (server side).
    public private(set) var prefaceMinor: UInt16?
    /// The largest `len` accepted once the handshake is done.
    public let frameLengthMax: UInt32

    /// - Parameters:
    ///   - expectsPreface: `true` on the server side of a connection.
    ///   - frameLengthMax: the largest `len` field accepted after the handshake (at least 12).
    public init(expectsPreface: Bool, frameLengthMax: UInt32) {
        precondition(frameLengthMax >= UInt32(FrameHeader.lengthCoveredByteCount), "frameLengthMax below header size")
        self.phase = expectsPreface ? .preface : .handshake
        self.frameLengthMax = frameLengthMax
    }

    /// The `len` limit in force for the next frame.
    public var currentFrameLengthMax: UInt32 {
        switch phase {
        case .preface, .handshake: min(UInt32(Self.handshakeFrameByteCountMax - 4), frameLengthMax)
        case .open: frameLengthMax
        }
    }

    public mutating func decode(buffer: inout ByteBuffer) throws -> Frame? {
        if phase == .preface {
            guard let preface = try Preface.read(from: &buffer) else { return nil }
            prefaceMinor = preface.minor
            phase = .handshake
        }
        let start = buffer.readerIndex
        guard let length = buffer.getInteger(at: start, as: UInt32.self) else { return nil }
        guard length >= UInt32(FrameHeader.lengthCoveredByteCount) else {
            throw WireError.frameTooShort(length: length)
        }
        let limit = currentFrameLengthMax
        guard length <= limit else { throw WireError.frameTooLarge(length: length, limit: limit) }
        guard buffer.readableBytes >= FrameHeader.byteCount else { return nil }

        let rawType = buffer.getInteger(at: start + 4, as: UInt8.self)!
        guard let type = FrameType(rawValue: rawType) else { throw WireError.unknownFrameType(rawType) }
        let flags = FrameFlags(rawValue: buffer.getInteger(at: start + 5, as: UInt8.self)!)
        try Self.validate(flags: flags, for: type)

        let frameByteCount = 4 + Int(length)
        guard buffer.readableBytes >= frameByteCount else { return nil }
        buffer.moveReaderIndex(forwardBy: 6)
        let (code, id, aux) = buffer.readMultipleIntegers(as: (UInt16, UInt32, UInt32).self)!
        let body = buffer.readSlice(length: frameByteCount - FrameHeader.byteCount)!
        if phase == .handshake { phase = .open }
        return Frame(header: FrameHeader(type: type, flags: flags, code: code, id: id, aux: aux), body: body)
    }

    public mutating func decodeLast(buffer: inout ByteBuffer, seenEOF: Bool) throws -> Frame? {
        // A partial frame at EOF is simply dropped: the peer went away mid-frame.
        try decode(buffer: &buffer)
    }

    static func validate(flags: FrameFlags, for type: FrameType) throws(WireError) {
        guard flags.isSubset(of: .defined) else { throw .reservedFlags }
        if flags.contains(.compressed), !type.allowsCompression { throw .flagNotAllowed(type) }
        if flags.contains(.idempotent), type != .request { throw .flagNotAllowed(type) }
        if flags.contains(.traceContext), type != .request { throw .flagNotAllowed(type) }
    }
}
