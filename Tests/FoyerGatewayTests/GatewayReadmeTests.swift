import Foundation
import FoyerAPI
import FoyerRPC
import FoyerWire
import NIOCore
import Testing

/// Services/Gateway/README.md is the contract a client in another language is written from, so it is checked
/// against the code: the method table against `GatewayMethods.all` (id, name, IDEMPOTENT flag), the status table
/// against `GatewayStatus`, every message the table names against a layout, and `GatewayMethods.all` against
/// what a running gateway serves.
@Suite("The gateway's README against its code")
struct GatewayReadmeTests {
    /// One row of a README table: its cells, the backticks kept.
    typealias Row = [String]

    static let readme: String = {
        var directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        while directory.path != "/" {
            let candidate = directory.appendingPathComponent("Services/Gateway/README.md")
            if FileManager.default.fileExists(atPath: candidate.path) {
                return (try? String(contentsOf: candidate, encoding: .utf8)) ?? ""
            }
            directory = directory.deletingLastPathComponent()
        }
        return ""
    }()

    /// The rows of every table whose first cell is a hexadecimal code in backticks starting with `prefix`.
    static func rows(startingWith prefix: String) -> [Row] {
        readme.split(separator: "\n").compactMap { line -> Row? in
            guard line.hasPrefix("| `\(prefix)") else { return nil }
            return line.split(separator: "|", omittingEmptySubsequences: false).dropFirst().dropLast()
                .map { $0.trimmingCharacters(in: .whitespaces) }
        }
    }

    /// `0x0501` from "`0x0501`".
    static func code(_ cell: String) -> UInt16? {
        UInt16(cell.trimmingCharacters(in: CharacterSet(charactersIn: "`")).dropFirst(2), radix: 16)
    }

    static func unquoted(_ cell: String) -> String {
        cell.trimmingCharacters(in: CharacterSet(charactersIn: "` "))
    }

    @Test("The method table lists every method with its id, name and idempotent flag, and nothing else")
    func methodTable() throws {
        #expect(!Self.readme.isEmpty, "Services/Gateway/README.md not found")
        let rows = Self.rows(startingWith: "0x05")
        var documented: [RPCMethodDescriptor] = []
        for row in rows {
            try #require(row.count == 5, "a method row has id, method, idempotent, messages, statuses: \(row)")
            let id = try #require(Self.code(row[0]), "not an id: \(row[0])")
            let idempotent = row[2].hasPrefix("yes")
            #expect(idempotent || row[2].hasPrefix("no"), "idempotent is yes or no: \(row)")
            documented.append(.init(id: id, name: "gateway." + Self.unquoted(row[1]), isIdempotent: idempotent))
        }
        #expect(documented.count == Set(documented).count, "a method is listed twice")
        let missing = Set(GatewayMethods.all).subtracting(documented)
        let unknown = Set(documented).subtracting(GatewayMethods.all)
        #expect(missing.isEmpty, "in the code, not (or not so) in the README: \(missing)")
        #expect(unknown.isEmpty, "in the README, not (or not so) in the code: \(unknown)")
    }

    @Test("Every message the method table names is laid out in the README or named as another service's")
    func messageLayouts() throws {
        let others = try #require(
            Self.readme.components(separatedBy: "Types of other services are laid out in their READMEs:").last?
                .components(separatedBy: "\n\n").first,
            "the paragraph naming other services' types is missing"
        )
        for row in Self.rows(startingWith: "0x05") where row.count == 5 {
            for message in row[3].components(separatedBy: "→").map(Self.unquoted) where message != "Empty" {
                let laidOut =
                    Self.readme.contains("\n`\(message)`\n") || Self.readme.contains("\n`\(message)` (")
                    || others.contains("`\(message)`")
                #expect(laidOut, "\(message) (\(row[1])) has no layout")
            }
        }
    }

    @Test("The status table lists every gateway status with its code and name, and nothing else")
    func statusTable() throws {
        var documented: [UInt16: String] = [:]
        for row in Self.rows(startingWith: "0x35") {
            try #require(row.count == 3, "a status row has status, name, meaning: \(row)")
            let code = try #require(Self.code(row[0]), "not a status: \(row[0])")
            #expect(documented.updateValue(Self.unquoted(row[1]), forKey: code) == nil, "twice: \(row[0])")
        }
        var defined: [UInt16: String] = [:]
        for code in UInt16(0x3500)...0x35FF {
            if let name = GatewayStatus.name(of: RPCStatus(rawValue: code)) { defined[code] = name }
        }
        #expect(!defined.isEmpty)
        #expect(documented == defined)
    }

    @Test("GatewayMethods.all is exactly what the gateway serves in its range")
    func allIsWhatTheGatewayServes() async throws {
        let fakes = try FakeServices()
        let served = try await fakes.withGateway { gateway in
            var served: Set<UInt16> = []
            for id in UInt16(0x0500)...0x05FF {
                let probe = RPCMethod<RawBody, RawBody>(id: id, name: "probe", idempotent: false)
                do {
                    _ = try await gateway.call(probe, RawBody(ByteBuffer()))
                    served.insert(id)
                } catch let error as RPCError where error.status == .unimplemented {
                    continue
                } catch {
                    served.insert(id)
                }
            }
            return served
        }
        #expect(served == Set(GatewayMethods.all.map(\.id)))
    }
}
