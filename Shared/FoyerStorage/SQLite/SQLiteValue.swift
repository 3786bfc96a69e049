import Foundation
import NIOCore

/// One SQLite value, as bound to a statement or read from a row: SQLite's five storage classes.
enum SQLiteValue: Sendable, Equatable {
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob(ByteBuffer)
    case null

    /// The value to bind for a value SQLKit was given (`\(bind: x)`): integers (64 bits at most), `Bool` (0 or 1),
    /// floating point, `String`, `ByteBuffer` and `Data` (a blob), `nil`; an enum or wrapper whose encoding is one
    /// of those as itself; anything else as its JSON text.
    init(binding value: any Encodable) throws {
        switch value {
        case let string as String: self = .text(string)
        case let integer as Int: self = .integer(Int64(integer))
        case let integer as Int64: self = .integer(integer)
        case let bool as Bool: self = .integer(bool ? 1 : 0)
        case let buffer as ByteBuffer: self = .blob(buffer)
        case let data as Data: self = .blob(ByteBuffer(bytes: data))
        case let double as Double: self = .real(double)
        default:
            let capture = SingleValueCapture()
            do {
                try value.encode(to: capture)
            } catch is SingleValueCapture.NotASingleValue {
                let json = try JSONEncoder().encode(value)
                self = .text(String(decoding: json, as: UTF8.self))
                return
            }
            guard let captured = capture.value else {
                throw SQLiteValueError("a value of type \(type(of: value)) encoded nothing")
            }
            self = captured
        }
    }

    /// The text, for a TEXT value.
    var text: String? {
        if case .text(let text) = self { return text }
        return nil
    }
}

/// A value that cannot be bound to, or read as, what was asked.
struct SQLiteValueError: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) { self.description = description }
}

/// An `Encoder` that keeps the one value an `Encodable` encodes as itself (`Optional`, `RawRepresentable` enums,
/// single-value wrappers), and gives up (``NotASingleValue``) on keyed or unkeyed containers.
private final class SingleValueCapture: Encoder, SingleValueEncodingContainer {
    struct NotASingleValue: Error {}

    var value: SQLiteValue?
    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        KeyedEncodingContainer(Refusing<Key>())
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer { Refusing<AnyKey>() }

    func singleValueContainer() -> any SingleValueEncodingContainer { self }

    func encodeNil() throws { self.value = .null }
    func encode(_ value: Bool) throws { self.value = .integer(value ? 1 : 0) }
    func encode(_ value: String) throws { self.value = .text(value) }
    func encode(_ value: Double) throws { self.value = .real(value) }
    func encode(_ value: Float) throws { self.value = .real(Double(value)) }
    func encode(_ value: Int) throws { self.value = .integer(Int64(value)) }
    func encode(_ value: Int8) throws { self.value = .integer(Int64(value)) }
    func encode(_ value: Int16) throws { self.value = .integer(Int64(value)) }
    func encode(_ value: Int32) throws { self.value = .integer(Int64(value)) }
    func encode(_ value: Int64) throws { self.value = .integer(value) }
    func encode(_ value: UInt) throws { self.value = .integer(try Self.exact(value)) }
    func encode(_ value: UInt8) throws { self.value = .integer(Int64(value)) }
    func encode(_ value: UInt16) throws { self.value = .integer(Int64(value)) }
    func encode(_ value: UInt32) throws { self.value = .integer(Int64(value)) }
    func encode(_ value: UInt64) throws { self.value = .integer(try Self.exact(value)) }

    func encode<T: Encodable>(_ value: T) throws {
        self.value = try SQLiteValue(binding: value)
    }

    private static func exact(_ value: some BinaryInteger) throws -> Int64 {
        guard let exact = Int64(exactly: value) else {
            throw SQLiteValueError("\(value) does not fit SQLite's 64-bit signed integer")
        }
        return exact
    }

    /// The containers a single value never uses: the first thing written to one ends the capture.
    private struct Refusing<Key: CodingKey>: KeyedEncodingContainerProtocol, UnkeyedEncodingContainer {
        var codingPath: [any CodingKey] { [] }
        var count: Int { 0 }

        mutating func encodeNil(forKey key: Key) throws { throw NotASingleValue() }
        mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws { throw NotASingleValue() }
        mutating func encodeNil() throws { throw NotASingleValue() }
        mutating func encode<T: Encodable>(_ value: T) throws { throw NotASingleValue() }
        mutating func nestedContainer<NestedKey: CodingKey>(
            keyedBy keyType: NestedKey.Type,
            forKey key: Key
        ) -> KeyedEncodingContainer<NestedKey> {
            KeyedEncodingContainer(Refusing<NestedKey>())
        }
        mutating func nestedContainer<NestedKey: CodingKey>(
            keyedBy keyType: NestedKey.Type
        ) -> KeyedEncodingContainer<NestedKey> {
            KeyedEncodingContainer(Refusing<NestedKey>())
        }
        mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer { self }
        mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer { self }
        mutating func superEncoder(forKey key: Key) -> any Encoder { SingleValueCapture() }
        mutating func superEncoder() -> any Encoder { SingleValueCapture() }
    }

    private struct AnyKey: CodingKey {
        var stringValue: String
        var intValue: Int?
        init(stringValue: String) { self.stringValue = stringValue }
        init(intValue: Int) {
            self.stringValue = "\(intValue)"
            self.intValue = intValue
        }
    }
}
