import Foundation
import FoyerRPC
import FoyerServiceKit
import Logging
import Testing

/// The cluster secret file is created by whichever service starts first; services started together must all end up
/// with the one secret that was written.
@Suite("Cluster secret file")
struct ClusterSecretFileTests {
    @Test("Created once, whole, by whichever of many concurrent starters wins; every starter reads the same secret")
    func concurrentCreation() async throws {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("foyer-secret-\(UUID().uuidString)", isDirectory: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("cluster-secret").path
        let logger = Logger(label: "test") { _ in SwiftLogNoOpLogHandler() }

        let texts = try await withThrowingTaskGroup(of: String.self) { group in
            for _ in 0..<16 {
                group.addTask { try ClusterSecretFile.loadOrCreate(path: path, logger: logger).text }
            }
            return try await group.reduce(into: [String]()) { $0.append($1) }
        }

        #expect(texts.count == 16)
        #expect(Set(texts).count == 1)
        let file = try String(contentsOfFile: path, encoding: .utf8)
        #expect(file == texts[0] + "\n")
        let permissions = try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int
        #expect(permissions == 0o600)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["cluster-secret"])
        #expect(try ClusterSecretFile.loadOrCreate(path: path, logger: logger).text == texts[0])
    }

    @Test("A file that does not hold a secret is refused, not replaced")
    func refusesGarbage() throws {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("foyer-secret-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("cluster-secret").path
        try Data("not a secret!\n".utf8).write(to: URL(fileURLWithPath: path))
        #expect(throws: RPCError.self) {
            try ClusterSecretFile.loadOrCreate(
                path: path,
                logger: Logger(label: "test") { _ in SwiftLogNoOpLogHandler() }
            )
        }
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "not a secret!\n")
    }
}
