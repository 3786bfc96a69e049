import FoyerAPI
import FoyerRPC
import FoyerStorage
import FoyerTestSupport
import FoyerUserData
import FoyerWire
import NIOCore
import SQLKit
import Testing

/// A running user-data service on a fresh database, a client of it, and its clock.
typealias UserDataHarness = StoreServiceHarness<UserDataConfiguration>

extension StoreServiceHarness where Configuration == UserDataConfiguration {
    @discardableResult
    func put(
        _ uid: String,
        _ collection: String,
        _ key: String,
        _ value: ByteBuffer,
        expectedVersion: UInt64? = nil
    ) async throws -> PutDocumentResponse {
        try await client.call(
            UserDataMethods.put,
            PutDocumentRequest(
                uid: uid,
                collection: collection,
                key: key,
                value: value,
                expectedVersion: expectedVersion
            )
        )
    }

    @discardableResult
    func put(_ uid: String, _ collection: String, _ key: String, _ text: String) async throws -> PutDocumentResponse {
        try await put(uid, collection, key, ByteBuffer(string: text))
    }

    /// `putOnce` of a text value under `op`, as attempt `attempt`, with a digest of the text (the gateway's is of
    /// the whole request; any bytes do for user-data), on `base` (nil: the document as it stands now).
    @discardableResult
    func putOnce(
        _ uid: String,
        _ collection: String,
        _ key: String,
        _ text: String,
        expectedVersion: UInt64? = nil,
        base: PutBase? = nil,
        op: String,
        attempt: String = "attempt-1"
    ) async throws -> PutOnceResponse {
        var stored = PutBase.absent
        if base == nil, let document = try await get(uid, collection, key) { stored = PutBase(document) }
        return try await client.call(
            UserDataMethods.putOnce,
            PutOnceRequest(
                uid: uid,
                collection: collection,
                key: key,
                value: ByteBuffer(string: text),
                expectedVersion: expectedVersion,
                base: base ?? stored,
                op: op,
                attempt: attempt,
                requestDigest: Array("\(collection)/\(key)=\(text)@\(expectedVersion.map(String.init) ?? "-")".utf8)
            )
        )
    }

    func deleteAll(_ uid: String) async throws -> UInt64 {
        try await client.call(UserDataMethods.deleteAll, DeleteAllDocumentsRequest(uid: uid)).deleted
    }

    /// Prunes everything past its retention, `limit` rows of each kind per call, until a call removes nothing.
    @discardableResult
    func pruneAll(limit: UInt64 = 1000) async throws -> UInt64 {
        var removed: UInt64 = 0
        while true {
            let answer = try await client.call(UserDataMethods.prune, PruneRequest(limit: limit))
            removed += answer.removed
            if answer.removed == 0 { return removed }
        }
    }

    /// Rows of `table`, or of it that hold `uid` in `column`.
    func rows(_ table: String, _ column: String? = nil, _ uid: String? = nil) async throws -> Int {
        try await database.withConnection { sql in
            let condition: SQLQueryString =
                if let column, let uid { " WHERE \(ident: column) = \(bind: uid)" } else { "" }
            return try await sql.raw("SELECT COUNT(*) AS n FROM \(ident: table)\(condition)").first()!
                .decode(column: "n", as: Int.self)
        }
    }

    func get(_ uid: String, _ collection: String, _ key: String) async throws -> StoredDocument? {
        try await client.call(UserDataMethods.get, GetDocumentRequest(uid: uid, collection: collection, key: key))
            .document
    }

    func text(_ uid: String, _ collection: String, _ key: String) async throws -> String? {
        try await get(uid, collection, key).map { String(buffer: $0.value) }
    }

    func count(_ uid: String, _ collection: String? = nil) async throws -> UInt64 {
        try await client.call(UserDataMethods.count, CountDocumentsRequest(uid: uid, collection: collection)).documents
    }

    func merge(_ guest: String, into account: String, op: String, policy: MergePolicy) async throws -> MergeReport {
        try await client.call(
            UserDataMethods.merge,
            MergeDocumentsRequest(fromUID: guest, toUID: account, op: op, policy: policy)
        )
    }

    /// Every document of `uid`, through `export`, page by page.
    func exportAll(_ uid: String, pageSize: UInt64 = 0) async throws -> (documents: [StoredDocument], pages: Int) {
        var documents: [StoredDocument] = []
        var cursor: ByteBuffer?
        var pages = 0
        repeat {
            let page = try await client.call(
                UserDataMethods.export,
                ExportDocumentsRequest(uid: uid, cursor: cursor, pageSize: pageSize)
            )
            documents += page.documents
            cursor = page.nextCursor
            pages += 1
        } while cursor != nil
        return (documents, pages)
    }
}

/// Runs `body` against user-data started in-process on port 0 over a fresh database on `engine`:
/// `withUserData(engine, configure: { ... }, maxAttempts: 1) { harness in ... }`.
let withUserData = StoreServiceUnderTest<UserDataConfiguration>(service: "user-data") {
    try await UserDataService.make(configuration: $0, server: $1, logger: $2)
}

/// Expects `body` to fail with a status (named as UserDataStatus names it), and returns the error for further checks.
let expectStatus = StatusExpectation(names: UserDataStatus.name(of:))

extension PutOnceResponse {
    /// The op's write (this attempt's or another's), or nil when nothing was written.
    var result: PutDocumentResponse? {
        switch self {
        case .written(let result), .replayed(let result): result
        case .found: nil
        }
    }

    var version: UInt64? { result?.version }

    var replayed: Bool {
        if case .replayed = self { true } else { false }
    }
}
