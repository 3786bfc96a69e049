import FoyerAPI
import FoyerStorage
import NIOCore
import SQLKit

extension DocumentStore {
    /// Which documents a page walks: one collection (`list`) or all of a user's (`export`).
    enum PageScope {
        case collection(String)
        case everything
    }

    /// One page of `scope` after `cursor`, at most `pageSize` documents and, after the first, at most
    /// `pageByteCountMax` bytes.
    ///
    /// Two reads: the sizes of the next `pageSize + 1` documents decide where the page ends (so no more values
    /// are loaded than are sent), then the values of that range are loaded. A document that grew or appeared in
    /// between cannot overflow the page: the budget is checked again on the loaded values, and the page ends
    /// before the first one that does not fit.
    func page(uid: String, scope: PageScope, cursor: DocumentCursor?, pageSize: Int) async throws -> DocumentPage {
        let kind: DocumentCursor.Kind
        let scopeCondition: SQLQueryString
        switch scope {
        case .collection(let collection):
            kind = .list
            scopeCondition = " AND collection = \(bind: collection)"
        case .everything:
            kind = .export
            scopeCondition = ""
        }
        // Row-value comparisons, so both engines walk the primary key from the cursor instead of filtering.
        let after: SQLQueryString =
            cursor.map { " AND (collection, doc_key) > (\(bind: $0.collection), \(bind: $0.key))" } ?? ""
        let budget = configuration.pageByteCountMax
        return try await database.withConnection { sql in
            let sizes = try await sql.raw(
                """
                SELECT collection, doc_key, body_size FROM ud_documents
                WHERE uid = \(bind: uid)\(scopeCondition)\(after)
                ORDER BY collection, doc_key LIMIT \(literal: pageSize + 1)
                """
            ).all()
            var planned: [(collection: String, key: String)] = []
            var plannedBytes = 0
            for row in sizes.prefix(pageSize) {
                let collection = try row.decode(column: "collection", as: String.self)
                let key = try row.decode(column: "doc_key", as: String.self)
                let bytes =
                    Int(try row.decode(column: "body_size", as: Int64.self)) + collection.utf8.count + key.utf8.count
                    + 38
                if !planned.isEmpty && plannedBytes + bytes > budget { break }
                planned.append((collection, key))
                plannedBytes += bytes
            }
            guard let last = planned.last else { return DocumentPage(documents: [], nextCursor: nil) }
            let rows = try await sql.raw(
                """
                SELECT collection, doc_key, body, version, updated_at FROM ud_documents
                WHERE uid = \(bind: uid)\(scopeCondition)\(after)
                    AND (collection, doc_key) <= (\(bind: last.collection), \(bind: last.key))
                ORDER BY collection, doc_key LIMIT \(literal: planned.count)
                """
            ).all()
            var documents: [StoredDocument] = []
            var bytes = 0
            for row in rows {
                let document = try Self.document(from: row)
                if !documents.isEmpty && bytes + document.encodedByteCount > budget { break }
                documents.append(document)
                bytes += document.encodedByteCount
            }
            let end = documents.last.map { ($0.collection, $0.key) } ?? (last.collection, last.key)
            let complete = sizes.count <= planned.count && end == (last.collection, last.key)
            let next = complete ? nil : DocumentCursor(kind: kind, collection: end.0, key: end.1).encoded
            return DocumentPage(documents: documents, nextCursor: next)
        }
    }
}
