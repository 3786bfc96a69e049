import Foundation
import FoyerAPI
import Testing

@testable import FoyerGatewayHTTP

/// The HTTP operation table against the binary operation table and against docs/openapi.yaml, so that an operation
/// added to one transport or to the document and not to the others fails here.
@Suite("The HTTP operation table")
struct HTTPOperationTableTests {
    private static let document = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("docs/openapi.yaml")

    /// `operationId: name` lines of the OpenAPI document.
    private static func documentedOperationIDs() throws -> [String] {
        let text = try String(contentsOf: document, encoding: .utf8)
        return text.split(separator: "\n").compactMap { line in
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            guard trimmed.hasPrefix("operationId:") else { return nil }
            return trimmed.dropFirst("operationId:".count).trimmingCharacters(in: .whitespaces)
        }
    }

    @Test("Every gateway method but jwks (served at /.well-known/jwks.json) has an HTTP row, and every row a method")
    func coversTheBinaryTable() {
        let served = Set(HTTPOperations.all.flatMap(\.methods))
        let binary = Set(GatewayMethods.all.map(\.id)).subtracting([GatewayMethods.jwks.id])
        #expect(
            served == binary,
            "binary only: \(binary.subtracting(served)); HTTP only: \(served.subtracting(binary))"
        )
    }

    @Test("Operation ids and (verb, path) pairs are unique")
    func unique() {
        let ids = HTTPOperations.all.map(\.operationID)
        #expect(Set(ids).count == ids.count)
        let routes = HTTPOperations.all.map { "\($0.verb) \($0.path)" }
        #expect(Set(routes).count == routes.count)
    }

    @Test("docs/openapi.yaml documents exactly the table's operations, plus the fixed paths")
    func matchesTheDocument() throws {
        let documented = Set(try Self.documentedOperationIDs())
        let table = Set(HTTPOperations.all.map(\.operationID))
        #expect(!documented.isEmpty, "no operationId found in \(Self.document.path)")
        #expect(table.subtracting(documented).isEmpty, "served but not documented: \(table.subtracting(documented))")
        // The paths outside /v1 that the responder answers itself (GatewayHTTPResponder+FixedPaths).
        let fixed: Set = ["getJWKS", "getOpenIDConfiguration", "getHealth", "getReadiness", "getOpenAPIDocument"]
        #expect(documented.subtracting(table) == fixed, "documented, not served: \(documented.subtracting(table))")
    }
}
