/// An SQLite result code other than success, with SQLite's message: what the SQLite engine throws (classified by
/// ``DatabaseError`` and ``DatabaseUnavailable``). `code` is the extended result code; its low byte is the primary.
public struct SQLiteFailure: Error, Sendable, CustomStringConvertible {
    /// The extended result code (`SQLITE_CONSTRAINT_UNIQUE` is 2067; `code & 0xFF` is the primary, 19).
    public let code: Int32
    /// SQLite's message for it.
    public let message: String

    /// The primary result code (`SQLITE_BUSY`, `SQLITE_CONSTRAINT`, ...).
    public var primaryCode: Int32 { self.code & 0xFF }

    public var description: String { "SQLite error \(self.code): \(self.message)" }

    static let busy: Int32 = 5
    static let locked: Int32 = 6
    static let full: Int32 = 13
    static let constraintUnique: Int32 = 2067
    static let constraintPrimaryKey: Int32 = 1555
    static let constraintRowID: Int32 = 2579
    static let constraintForeignKey: Int32 = 787
}
