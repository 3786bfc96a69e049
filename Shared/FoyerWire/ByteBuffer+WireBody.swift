public import NIOCore

// Primitive encodings for message bodies (docs/PROTOCOL.md, "Body encoding"):
// fixed-width integers big-endian; `varint` unsigned LEB128 in its shortest form (at most 10 bytes);
// `string` and `bytes` a varint length then the bytes; `bool` one byte 0 or 1; an optional a `bool` then the
// value; a list a varint count then the elements. Every read checks what remains and a caller-given cap.

extension ByteBuffer {
    // MARK: Integers

    /// Reads a fixed-width big-endian integer, throwing if the body ends first.
    @inlinable
    public mutating func readWire<T: FixedWidthInteger>(_: T.Type = T.self) throws(WireError) -> T {
        guard let value = readInteger(as: T.self) else { throw .truncatedBody }
        return value
    }

    public mutating func writeVarint(_ value: UInt64) {
        var value = value
        while value >= 0x80 {
            writeInteger(UInt8(truncatingIfNeeded: value) | 0x80)
            value >>= 7
        }
        writeInteger(UInt8(value))
    }

    /// Reads an unsigned LEB128 varint. Overlong encodings (a final zero byte after the first) and values
    /// over 64 bits are refused, so every value has exactly one encoding.
    public mutating func readVarint() throws(WireError) -> UInt64 {
        var result: UInt64 = 0
        var shift: UInt64 = 0
        var index = readerIndex
        while true {
            guard let byte = getInteger(at: index, as: UInt8.self) else { throw .truncatedBody }
            index += 1
            if shift == 63, byte > 1 { throw .invalidVarint }
            result |= UInt64(byte & 0x7F) << shift
            if byte & 0x80 == 0 {
                if byte == 0, shift > 0 { throw .invalidVarint }
                break
            }
            shift += 7
        }
        moveReaderIndex(to: index)
        return result
    }

    /// Reads a varint that must fit `limit`, naming `field` in the error.
    public mutating func readVarint(_ field: String, max limit: UInt64) throws(WireError) -> UInt64 {
        let value = try readVarint()
        guard value <= limit else { throw .invalidValue(field) }
        return value
    }

    // MARK: Booleans and optionals

    public mutating func writeBool(_ value: Bool) { writeInteger(UInt8(value ? 1 : 0)) }

    public mutating func readBool() throws(WireError) -> Bool {
        switch try readWire(UInt8.self) {
        case 0: return false
        case 1: return true
        default: throw .invalidValue("bool")
        }
    }

    /// Writes an optional: `bool` present, then the value if present.
    public mutating func writeOptional<T>(_ value: T?, _ write: (inout ByteBuffer, T) -> Void) {
        writeBool(value != nil)
        if let value { write(&self, value) }
    }

    /// Reads an optional written by `writeOptional`.
    public mutating func readOptional<T>(_ read: (inout ByteBuffer) throws(WireError) -> T) throws(WireError) -> T? {
        guard try readBool() else { return nil }
        return try read(&self)
    }

    /// Reads a `u8` enum, refusing values the enum does not define.
    public mutating func readEnum<T: RawRepresentable>(_: T.Type, _ field: String) throws(WireError) -> T
    where T.RawValue == UInt8 {
        guard let value = T(rawValue: try readWire(UInt8.self)) else { throw .invalidValue(field) }
        return value
    }

    // MARK: Strings and byte strings

    /// Writes a varint length and the UTF-8 bytes of `string`.
    public mutating func writeLengthPrefixedString(_ string: String) {
        var string = string
        string.withUTF8 { utf8 in
            writeVarint(UInt64(utf8.count))
            writeBytes(UnsafeRawBufferPointer(utf8))
        }
    }

    /// Writes `string`, cut at a character boundary to at most `maxBytes` UTF-8 bytes (for free-text fields
    /// such as error messages, where a long text must not make the body invalid).
    public mutating func writeLengthPrefixedString(_ string: String, truncatingToBytes maxBytes: Int) {
        guard string.utf8.count > maxBytes else { return writeLengthPrefixedString(string) }
        var end = string.utf8.index(string.utf8.startIndex, offsetBy: maxBytes)
        while UTF8.isContinuation(string.utf8[end]) { end = string.utf8.index(before: end) }
        writeLengthPrefixedString(String(Substring(string.utf8[..<end])))
    }

    /// Reads a length-prefixed UTF-8 string of at most `maxBytes` bytes.
    public mutating func readLengthPrefixedString(_ field: String, maxBytes: Int) throws(WireError) -> String {
        let length = try readLength(field, maxBytes: maxBytes)
        guard let string = String(validatingUTF8Bytes: readableBytesView.prefix(length)) else { throw .invalidUTF8 }
        moveReaderIndex(forwardBy: length)
        return string
    }

    public mutating func writeLengthPrefixedBytes(_ bytes: some Collection<UInt8>) {
        writeVarint(UInt64(bytes.count))
        writeBytes(bytes)
    }

    public mutating func writeLengthPrefixedBuffer(_ buffer: ByteBuffer) {
        writeVarint(UInt64(buffer.readableBytes))
        writeImmutableBuffer(buffer)
    }

    /// Reads a length-prefixed byte string of at most `maxBytes` bytes into an array.
    public mutating func readLengthPrefixedBytes(_ field: String, maxBytes: Int) throws(WireError) -> [UInt8] {
        let length = try readLength(field, maxBytes: maxBytes)
        return readBytes(length: length)!
    }

    /// Reads a length-prefixed byte string of at most `maxBytes` bytes as a slice, without copying.
    public mutating func readLengthPrefixedBuffer(_ field: String, maxBytes: Int) throws(WireError) -> ByteBuffer {
        let length = try readLength(field, maxBytes: maxBytes)
        return readSlice(length: length)!
    }

    private mutating func readLength(_ field: String, maxBytes: Int) throws(WireError) -> Int {
        let length = try readVarint()
        guard length <= UInt64(maxBytes) else { throw .lengthOverLimit(field, length: length, limit: maxBytes) }
        guard length <= UInt64(readableBytes) else { throw .truncatedBody }
        return Int(length)
    }

    // MARK: Lists

    /// Reads a list count, refusing counts over `maxCount` and counts that the remaining bytes cannot hold
    /// when every element takes at least `minElementBytes`, so no allocation is sized by a lie.
    public mutating func readCount(_ field: String, maxCount: Int, minElementBytes: Int = 1) throws(WireError) -> Int {
        let count = try readVarint()
        guard count <= UInt64(maxCount) else { throw .lengthOverLimit(field, length: count, limit: maxCount) }
        guard
            count.multipliedReportingOverflow(by: UInt64(max(minElementBytes, 0))).partialValue
                <= UInt64(readableBytes)
        else { throw .countOverRemaining(field, count: count) }
        return Int(count)
    }
}
