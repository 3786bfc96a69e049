import Foundation
import NIOCore

/// A `Decoder` of one ``SQLiteValue`` as a single value: what `SQLRow.decode(column:as:)` reads a column through on
/// SQLite. SQLite's values convert as its own casts do, where nothing is lost: an INTEGER reads as any integer type
/// it fits, as `Double` or `Bool` (non-zero is true) or as its decimal text; a REAL reads as an integer only when it
/// is integral; TEXT reads as a number when it spells one. A blob reads as `ByteBuffer` or `Data`. A type that decodes from a keyed or unkeyed container is read from the value's JSON text, the
/// way ``SQLiteValue/init(binding:)`` writes it.
struct SQLiteValueDecoder: Decoder, SingleValueDecodingContainer {
    let value: SQLiteValue
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    init(_ value: SQLiteValue, column: String) {
        self.value = value
        self.codingPath = [ColumnKey(stringValue: column)]
    }

    /// Reads `type` from `value`.
    static func decode<D: Decodable>(_ type: D.Type, from value: SQLiteValue, column: String) throws -> D {
        if case .blob(let buffer) = value {
            if let buffer = buffer as? D { return buffer }
            if let data = Data(buffer.readableBytesView) as? D { return data }
        }
        do {
            return try D(from: SQLiteValueDecoder(value, column: column))
        } catch is NeedsJSON {
            guard case .text(let json) = value else {
                throw SQLiteValueError("column '\(column)' holds \(value.kind), not the JSON text of \(type)")
            }
            return try JSONDecoder().decode(D.self, from: Data(json.utf8))
        }
    }

    /// A container other than a single value was asked for: the value is the JSON text of a structure.
    struct NeedsJSON: Error {}

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> { throw NeedsJSON() }
    func unkeyedContainer() throws -> any UnkeyedDecodingContainer { throw NeedsJSON() }
    func singleValueContainer() throws -> any SingleValueDecodingContainer { self }

    func decodeNil() -> Bool { self.value == .null }

    func decode(_ type: Bool.Type) throws -> Bool {
        switch self.value {
        case .integer(let integer): return integer != 0
        case .real(let real): return real != 0
        case .text("true"), .text("TRUE"): return true
        case .text("false"), .text("FALSE"): return false
        default: throw self.mismatch(type)
        }
    }

    func decode(_ type: String.Type) throws -> String {
        switch self.value {
        case .text(let text): return text
        case .integer(let integer): return String(integer)
        case .real(let real): return String(real)
        default: throw self.mismatch(type)
        }
    }

    func decode(_ type: Double.Type) throws -> Double {
        switch self.value {
        case .real(let real): return real
        case .integer(let integer): return Double(integer)
        case .text(let text):
            guard let real = Double(text) else { throw self.mismatch(type) }
            return real
        default: throw self.mismatch(type)
        }
    }

    func decode(_ type: Float.Type) throws -> Float { Float(try self.decode(Double.self)) }
    func decode(_ type: Int.Type) throws -> Int { try self.integer(type) }
    func decode(_ type: Int8.Type) throws -> Int8 { try self.integer(type) }
    func decode(_ type: Int16.Type) throws -> Int16 { try self.integer(type) }
    func decode(_ type: Int32.Type) throws -> Int32 { try self.integer(type) }
    func decode(_ type: Int64.Type) throws -> Int64 { try self.integer(type) }
    func decode(_ type: UInt.Type) throws -> UInt { try self.integer(type) }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try self.integer(type) }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try self.integer(type) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try self.integer(type) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try self.integer(type) }

    func decode<T: Decodable>(_ type: T.Type) throws -> T {
        try Self.decode(type, from: self.value, column: self.codingPath.first?.stringValue ?? "")
    }

    private func integer<I: FixedWidthInteger>(_ type: I.Type) throws -> I {
        let exact: I?
        switch self.value {
        case .integer(let integer): exact = I(exactly: integer)
        case .real(let real): exact = I(exactly: real)
        case .text(let text): exact = I(text)
        default: exact = nil
        }
        guard let exact else { throw self.mismatch(type) }
        return exact
    }

    private func mismatch(_ type: Any.Type) -> SQLiteValueError {
        SQLiteValueError("column '\(self.codingPath.first?.stringValue ?? "")' holds \(self.value.kind), not \(type)")
    }

    private struct ColumnKey: CodingKey {
        let stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }
}

extension SQLiteValue {
    /// What the value is, for an error message (never the value itself, which may be personal data).
    var kind: String {
        switch self {
        case .integer: "an integer"
        case .real: "a real number"
        case .text: "text"
        case .blob: "a blob"
        case .null: "NULL"
        }
    }
}
