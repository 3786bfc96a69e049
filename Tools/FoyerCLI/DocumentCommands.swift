import ArgumentParser
import Foundation
import FoyerAPI
import FoyerClient
import NIOCore

struct PutCommand: JSONCommand {
    static let configuration = CommandConfiguration(
        commandName: "put",
        abstract: "Write a document: VALUE as UTF-8 text, or the bytes of --file.",
        discussion: """
            A guest's new document takes quota; when none is left the error is quota-exceeded with counter, \
            limit, used and remaining. A key or value that begins with a dash goes after `--` \
            (foyer put notes k -- -5).
            Output: {"collection", "key", "version", "updatedAt"}.
            """
    )

    @OptionGroup var global: GlobalOptions

    @Argument(help: "The collection (1-64 of A-Z a-z 0-9 _ . -).")
    var collection: String

    @Argument(help: "The document's key (1-256 bytes).")
    var key: String

    @Argument(help: "The value, as UTF-8 text (or use --file).")
    var value: String?

    @Option(help: ArgumentHelp("Write the bytes of this file instead of VALUE.", valueName: "path"))
    var file: String?

    @Option(help: "Write only over this version (0: only if the document does not exist).")
    var expectedVersion: UInt64?

    func validate() throws {
        guard (value == nil) != (file == nil) else { throw ValidationError("give either VALUE or --file") }
    }

    func execute() async throws(FoyerError) -> JSONValue {
        let bytes: ByteBuffer
        if let file {
            guard let data = FileManager.default.contents(atPath: file) else {
                throw .invalidInput("cannot read \(file)")
            }
            bytes = ByteBuffer(bytes: data)
        } else {
            bytes = ByteBuffer(string: value ?? "")
        }
        return try await CommandContext.run(global) { (context) async throws(FoyerError) in
            _ = try context.requireSession()
            let answer = try await context.client.put(collection, key, value: bytes, expectedVersion: expectedVersion)
            return .object([
                ("collection", .string(collection)),
                ("key", .string(key)),
                ("version", .uint(answer.version)),
                ("updatedAt", .time(microseconds: answer.updatedAtMicroseconds)),
            ])
        }
    }
}

struct GetCommand: JSONCommand {
    static let configuration = CommandConfiguration(
        commandName: "get",
        abstract: "Read a document.",
        discussion: """
            Output: {"found": true, "collection", "key", "version", "updatedAt", "encoding": "utf8"|"base64", \
            "value"}, or {"found": false, "collection", "key"} when there is no such document.
            """
    )

    @OptionGroup var global: GlobalOptions

    @Argument(help: "The collection.")
    var collection: String

    @Argument(help: "The document's key.")
    var key: String

    func execute() async throws(FoyerError) -> JSONValue {
        try await CommandContext.run(global) { (context) async throws(FoyerError) in
            _ = try context.requireSession()
            guard let document = try await context.client.get(collection, key) else {
                return .object([("found", .bool(false)), ("collection", .string(collection)), ("key", .string(key))])
            }
            guard case .object(let members) = Render.document(document) else { return .null }
            return .object([("found", .bool(true))] + members)
        }
    }
}

struct ListCommand: JSONCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "List a collection's documents in key order, one page at a time.",
        discussion: """
            Output: {"documents": [{"collection", "key", "version", "updatedAt", "encoding", "value"}], \
            "nextCursor": "..."|null}; pass nextCursor to --cursor for the next page.
            """
    )

    @OptionGroup var global: GlobalOptions

    @Argument(help: "The collection.")
    var collection: String

    @Option(help: "Documents per page (1-1000).")
    var limit: Int = 100

    @Option(parsing: .unconditional, help: "The nextCursor of the previous page.")
    var cursor: String?

    func execute() async throws(FoyerError) -> JSONValue {
        let position = try cursor.map { (text) throws(FoyerError) in try PageCursor.cursor(text) }
        return try await CommandContext.run(global) { (context) async throws(FoyerError) in
            _ = try context.requireSession()
            return Render.page(try await context.client.list(collection, cursor: position, pageSize: limit))
        }
    }
}

struct DeleteCommand: JSONCommand {
    static let configuration = CommandConfiguration(
        commandName: "delete",
        abstract: "Delete a document (its quota is given back).",
        discussion: #"Output: {"collection", "key", "deleted": true|false}."#
    )

    @OptionGroup var global: GlobalOptions

    @Argument(help: "The collection.")
    var collection: String

    @Argument(help: "The document's key.")
    var key: String

    func execute() async throws(FoyerError) -> JSONValue {
        try await CommandContext.run(global) { (context) async throws(FoyerError) in
            _ = try context.requireSession()
            let deleted = try await context.client.delete(collection, key)
            return .object([("collection", .string(collection)), ("key", .string(key)), ("deleted", .bool(deleted))])
        }
    }
}

struct ExportCommand: JSONCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Every document of the session's user, in every collection (\"download my data\").",
        discussion:
            #"Output: {"uid", "count", "documents": [{"collection", "key", "version", "updatedAt", "encoding", "value"}]}."#
    )

    @OptionGroup var global: GlobalOptions

    func execute() async throws(FoyerError) -> JSONValue {
        try await CommandContext.run(global) { (context) async throws(FoyerError) in
            let session = try context.requireSession()
            let documents = try await context.client.exportAll()
            return .object([
                ("uid", .string(session.uid)),
                ("count", .uint(UInt64(documents.count))),
                ("documents", .array(documents.map(Render.document))),
            ])
        }
    }
}
