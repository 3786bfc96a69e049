import FoyerAPI
import FoyerStorage
import FoyerTestSupport
import SQLKit
import Testing

@testable import FoyerIdentity

@Suite("Admin: listUsers reads index ranges, never the whole table")
struct UserListingPlanTests {
    /// Every listing: each kind, order and direction, from the start and from a cursor.
    private static var requests: [ListUsersRequest] {
        UserKind.allCases.flatMap { kind in
            UserOrder.allCases.flatMap { order in
                [false, true].flatMap { newestFirst in
                    [nil, UserCursor(atMilliseconds: 1_790_000_000_000, uid: "8f")].map { after in
                        ListUsersRequest(kind: kind, order: order, newestFirst: newestFirst, limit: 50, after: after)
                    }
                }
            }
        }
    }

    @Test("EXPLAIN shows index searches in the page's order, on each engine", arguments: TestEngine.allCases)
    func plans(engine: TestEngine) async throws {
        try await withIdentity(engine) { identity in
            try await identity.database.transaction { sql in
                if sql.engineKind == .postgres {
                    // The table is nearly empty: forbid what the planner would otherwise rightly pick for it, so
                    // the plan shows whether the indexes can serve the query (a forbidden node still appears when
                    // nothing else can).
                    for setting in ["enable_seqscan", "enable_bitmapscan", "enable_sort"] {
                        try await sql.raw("SET LOCAL \(unsafeRaw: setting) = off").run()
                    }
                }
                for request in Self.requests {
                    let plan = try await Self.plan(sql, UserListing.query(request))
                    let context = "\(request.kind) \(request.order) \(request.newestFirst) \(request.after != nil)"
                    let index = request.order == .createdAt ? "identity_users_created" : "identity_users_activity"
                    #expect(plan.contains(index), "\(context): \(plan)")
                    switch sql.engineKind {
                    case .sqlite:
                        #expect(!plan.contains("SCAN identity_users"), "\(context): \(plan)")
                        // `all` merges its two ranges (at most limit + 1 rows each); one kind needs no sort at all.
                        if request.kind != .all { #expect(!plan.contains("TEMP B-TREE"), "\(context): \(plan)") }
                    case .postgres:
                        #expect(!plan.contains("Seq Scan") && !plan.contains("Sort  ("), "\(context): \(plan)")
                    }
                }
            }
        }
    }

    private static func plan(_ sql: any SQLDatabase, _ query: SQLQueryString) async throws -> String {
        switch sql.engineKind {
        case .sqlite:
            return try await sql.raw("EXPLAIN QUERY PLAN \(query)").all()
                .map { try $0.decode(column: "detail", as: String.self) }.joined(separator: "\n")
        case .postgres:
            return try await sql.raw("EXPLAIN \(query)").all()
                .map { try $0.decode(column: "QUERY PLAN", as: String.self) }.joined(separator: "\n")
        }
    }
}
