public import NIOCore

/// The 8 bytes a client sends before anything else: `"FOYR"`, `u16 major`, `u16 minor`.
///
/// A server accepts only its own major version; the minor version announces optional features that a peer
/// may ignore.
public struct Preface: Hashable, Sendable {
    public static let byteCount = 8
    public static let magic: [UInt8] = Array("FOYR".utf8)
    /// The protocol this code speaks: 1.1 (1.0 and trace context, negotiated through HELLO_ACK's `features`).
    public static let current = Preface(major: 1, minor: 1)
    /// The first minor version whose server may append `HelloFeatures` to HELLO_ACK.
    public static let featuresMinor: UInt16 = 1

    public var major: UInt16
    public var minor: UInt16

    public init(major: UInt16, minor: UInt16) {
        self.major = major
        self.minor = minor
    }

    public func encode(into buffer: inout ByteBuffer) {
        buffer.writeBytes(Self.magic)
        buffer.writeMultipleIntegers(major, minor)
    }

    /// Reads a preface once 8 bytes are there; returns `nil` (consuming nothing) before that.
    ///
    /// - Throws: `WireError.badPreface` if the magic is wrong, `WireError.unsupportedVersion` for another major.
    public static func read(from buffer: inout ByteBuffer) throws(WireError) -> Preface? {
        guard buffer.readableBytes >= byteCount else {
            // Fail early on a wrong magic even before all 8 bytes are in, so a stray HTTP client is told at once.
            let prefix = buffer.readableBytesView.prefix(magic.count)
            guard prefix.elementsEqual(magic.prefix(prefix.count)) else { throw .badPreface }
            return nil
        }
        guard buffer.readableBytesView.prefix(magic.count).elementsEqual(magic) else { throw .badPreface }
        buffer.moveReaderIndex(forwardBy: magic.count)
        let (major, minor) = buffer.readMultipleIntegers(as: (UInt16, UInt16).self)!
        guard major == current.major else { throw .unsupportedVersion(major: major) }
        return Preface(major: major, minor: minor)
    }
}
