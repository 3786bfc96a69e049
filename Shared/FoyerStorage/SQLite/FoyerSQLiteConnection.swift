import AsyncKit
internal import CFoyerSQLite
import Foundation
import NIOCore
import Synchronization

/// One SQLite connection (`sqlite3*`) on a thread of its own (``SQLiteThread``), used only from that thread.
///
/// Its statements are synchronous calls (``run(_:binds:onRow:)``) made by code that already runs on the connection's
/// thread: a transaction body does, through ``FoyerSQLiteDatabase``, which moves the task there once. Prepared
/// statements are kept per connection (those with bound values, which is what repeats), so a statement a service
/// runs again is not parsed again.
///
/// `@unchecked Sendable`: `handle` and `statements` are touched on `thread` only (every entry point that reaches them
/// runs there: ``open(path:role:thread:ownsThread:options:eventLoop:)``, ``run(_:binds:onRow:)`` from a task that
/// prefers the thread, ``close()``); `closed` is atomic for the pool, which reads it from its event loop.
final class FoyerSQLiteConnection: ConnectionPoolItem, @unchecked Sendable {
    enum Role: Sendable { case writer, reader }

    struct Options: Sendable {
        var busyTimeout: Duration
        var synchronous: DatabaseConfiguration.SQLiteSynchronous
    }

    /// Most prepared statements a connection keeps; past it they are all finalized and the cache starts over.
    static let preparedStatementsMax = 128

    let thread: SQLiteThread
    /// Whether closing the connection ends its thread (a reader's; the writer's thread outlives its connections).
    private let ownsThread: Bool
    let eventLoop: any EventLoop
    let path: String
    private var handle: OpaquePointer?
    private var statements: [String: OpaquePointer] = [:]
    private let closed = Atomic(false)

    var isClosed: Bool { self.closed.load(ordering: .acquiring) }

    private init(
        handle: OpaquePointer,
        path: String,
        thread: SQLiteThread,
        ownsThread: Bool,
        eventLoop: any EventLoop
    ) {
        self.handle = handle
        self.path = path
        self.thread = thread
        self.ownsThread = ownsThread
        self.eventLoop = eventLoop
    }

    /// Opens `path` (creating the file) on `thread` and applies Foyer's pragmas: a bounded busy timeout, WAL (the
    /// writer switches the file), `synchronous`, foreign keys, and `query_only` on readers. With `ownsThread`,
    /// ``close()`` ends the thread.
    static func open(
        path: String,
        role: Role,
        thread: SQLiteThread,
        ownsThread: Bool,
        options: Options,
        eventLoop: any EventLoop
    ) async throws -> FoyerSQLiteConnection {
        try await withTaskExecutorPreference(thread) {
            var handle: OpaquePointer?
            // NOMUTEX: the connection is used by its own thread only, so SQLite's per-connection mutex is not needed.
            let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX
            let status = sqlite3_open_v2(path, &handle, flags, nil)
            guard status == SQLITE_OK, let handle else {
                let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
                sqlite3_close_v2(handle)
                throw SQLiteFailure(code: status, message: message)
            }
            sqlite3_extended_result_codes(handle, 1)
            let connection = FoyerSQLiteConnection(
                handle: handle,
                path: path,
                thread: thread,
                ownsThread: ownsThread,
                eventLoop: eventLoop
            )
            do {
                try connection.applyPragmas(role: role, options: options)
            } catch {
                connection.closeHandle()
                throw error
            }
            return connection
        }
    }

    private func applyPragmas(role: Role, options: Options) throws {
        // The busy timeout first: it lets the switch to WAL wait for a lock held by another process.
        sqlite3_busy_timeout(self.handle, Int32(clamping: max(0, options.busyTimeout.milliseconds)))
        if role == .writer {
            var mode: String?
            try self.run("PRAGMA journal_mode = WAL") { row in mode = row.values.first?.text?.lowercased() }
            guard mode == "wal" else {
                throw FoyerStorageError.openFailed(
                    "sqlite:\(self.path): could not switch to WAL journal mode (got \(mode ?? "nothing"))"
                )
            }
        }
        try self.run("PRAGMA synchronous = \(options.synchronous.rawValue)")
        try self.run("PRAGMA foreign_keys = ON")
        if role == .reader {
            // Reads only: a write through withConnection fails loudly on SQLite instead of racing the writer.
            try self.run("PRAGMA query_only = ON")
        }
    }

    /// Runs one statement with `binds`, hands each row it returns to `onRow`, and answers how many rows it changed
    /// (`sqlite3_changes`; 0 for a statement that writes nothing). Call it on ``thread`` only.
    @discardableResult
    func run(
        _ sql: String,
        binds: [SQLiteValue] = [],
        onRow: (SQLiteResultRow) throws -> Void = { _ in }
    ) throws -> Int {
        assert(self.thread.isCurrent, "an SQLite statement ran off its connection's thread")
        guard let handle = self.handle else {
            throw SQLiteFailure(code: SQLITE_MISUSE, message: "the connection is closed")
        }
        let statement = try self.prepared(sql, cached: !binds.isEmpty, handle: handle)
        defer { self.finish(statement, cached: !binds.isEmpty) }
        try self.bind(binds, to: statement, handle: handle)
        var columns: SQLiteColumnNames?
        while true {
            switch sqlite3_step(statement) {
            case SQLITE_ROW:
                let names = columns ?? SQLiteColumnNames(statement: statement)
                columns = names
                try onRow(SQLiteResultRow(columns: names, values: Self.values(of: statement, count: names.count)))
            case SQLITE_DONE:
                return sqlite3_stmt_readonly(statement) != 0 ? 0 : Int(sqlite3_changes(handle))
            case let status:
                throw SQLiteFailure(code: status, message: String(cString: sqlite3_errmsg(handle)))
            }
        }
    }

    private func prepared(_ sql: String, cached: Bool, handle: OpaquePointer) throws -> OpaquePointer {
        if cached, let statement = self.statements[sql] { return statement }
        var statement: OpaquePointer?
        let status = sqlite3_prepare_v3(
            handle,
            sql,
            -1,
            cached ? UInt32(SQLITE_PREPARE_PERSISTENT) : 0,
            &statement,
            nil
        )
        guard status == SQLITE_OK, let statement else {
            throw SQLiteFailure(code: status, message: String(cString: sqlite3_errmsg(handle)))
        }
        if cached {
            if self.statements.count >= Self.preparedStatementsMax { self.finalizeStatements() }
            self.statements[sql] = statement
        }
        return statement
    }

    /// A kept statement is reset (its bindings cleared) for the next run; any other is finalized.
    private func finish(_ statement: OpaquePointer, cached: Bool) {
        if cached {
            sqlite3_reset(statement)
            sqlite3_clear_bindings(statement)
        } else {
            sqlite3_finalize(statement)
        }
    }

    private func bind(_ binds: [SQLiteValue], to statement: OpaquePointer, handle: OpaquePointer) throws {
        for (offset, value) in binds.enumerated() {
            let index = Int32(offset + 1)
            let status: Int32
            switch value {
            case .integer(let integer):
                status = sqlite3_bind_int64(statement, index, integer)
            case .real(let double):
                status = sqlite3_bind_double(statement, index, double)
            case .text(var text):
                // With its length in bytes: a NUL inside the text is part of it, not its end.
                status = text.withUTF8 { bytes in
                    bytes.withMemoryRebound(to: CChar.self) { characters in
                        sqlite3_bind_text64(
                            statement,
                            index,
                            characters.baseAddress ?? Self.emptyText,
                            sqlite3_uint64(characters.count),
                            foyer_sqlite_transient(),
                            UInt8(SQLITE_UTF8)
                        )
                    }
                }
            case .blob(let buffer):
                // An empty blob is a zero-length blob, not NULL (which a null pointer would bind).
                status = buffer.withUnsafeReadableBytes { bytes in
                    guard let base = bytes.baseAddress, bytes.count > 0 else {
                        return sqlite3_bind_zeroblob(statement, index, 0)
                    }
                    return sqlite3_bind_blob64(
                        statement,
                        index,
                        base,
                        sqlite3_uint64(bytes.count),
                        foyer_sqlite_transient()
                    )
                }
            case .null:
                status = sqlite3_bind_null(statement, index)
            }
            guard status == SQLITE_OK else {
                throw SQLiteFailure(code: status, message: String(cString: sqlite3_errmsg(handle)))
            }
        }
    }

    /// What an empty text is bound from (a null pointer would bind NULL).
    private static var emptyText: UnsafePointer<CChar> {
        UnsafeRawPointer(("" as StaticString).utf8Start).assumingMemoryBound(to: CChar.self)
    }

    private static func values(of statement: OpaquePointer, count: Int) -> [SQLiteValue] {
        (0..<Int32(count)).map { column in
            switch sqlite3_column_type(statement, column) {
            case SQLITE_INTEGER:
                return .integer(sqlite3_column_int64(statement, column))
            case SQLITE_FLOAT:
                return .real(sqlite3_column_double(statement, column))
            case SQLITE_TEXT:
                let length = Int(sqlite3_column_bytes(statement, column))
                guard let text = sqlite3_column_text(statement, column) else { return .text("") }
                return .text(String(decoding: UnsafeBufferPointer(start: text, count: length), as: UTF8.self))
            case SQLITE_BLOB:
                let length = Int(sqlite3_column_bytes(statement, column))
                guard let bytes = sqlite3_column_blob(statement, column), length > 0 else {
                    return .blob(ByteBuffer())
                }
                return .blob(ByteBuffer(bytes: UnsafeRawBufferPointer(start: bytes, count: length)))
            default:
                return .null
            }
        }
    }

    private func finalizeStatements() {
        for statement in self.statements.values { sqlite3_finalize(statement) }
        self.statements.removeAll()
    }

    private func closeHandle() {
        self.finalizeStatements()
        sqlite3_close_v2(self.handle)
        self.handle = nil
        self.closed.store(true, ordering: .releasing)
    }

    /// Closes the connection on its thread (SQLite checkpoints the WAL when the last connection closes), then ends
    /// the thread if it is the connection's own. Closing twice does nothing more.
    func close() -> EventLoopFuture<Void> {
        guard !self.isClosed else { return self.eventLoop.makeSucceededVoidFuture() }
        return self.eventLoop.makeFutureWithTask {
            await withTaskExecutorPreference(self.thread) {
                guard !self.isClosed else { return }
                self.closeHandle()
            }
            if self.ownsThread { self.thread.stop() }
        }
    }
}
