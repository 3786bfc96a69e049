import Foundation
import Testing

/// FoyerClient must build for iOS, where no system C library (liblz4, libcrypto) exists. No iOS SDK is at hand where
/// the tests run, so the package graph is checked instead: nothing in FoyerClient's dependency closure may be a
/// `.systemLibrary` target. And it must build for iOS 16, while `Synchronization` (`Mutex`, `Atomic`) needs iOS 18:
/// no Swift file of our own targets in the closure may import it (Linux has no availability checks to catch it).
@Suite("FoyerClient portability")
struct ClientPortabilityTests {
    static func closure(of target: String) throws -> DependencyClosure {
        try DependencyClosure(of: target, in: DescribedPackage.describe(ComposeFileTests.repository))
    }

    /// Whether `line` imports the module or one of its declarations, with any attribute or access level in front.
    static func importsSynchronization(_ line: String) -> Bool {
        line.firstMatch(
            of:
                #/^\s*(@\w+\s+)*((public|package|internal|fileprivate|private)\s+)?import\s+((typealias|struct|class|enum|protocol|let|var|func)\s+)?Synchronization(\.|\s|$)/#
        ) != nil
    }

    /// `path/File.swift:line` for every import of `Synchronization` in the Swift files of our own (root package)
    /// targets in `closure`.
    static func synchronizationImports(_ closure: DependencyClosure) throws -> [String] {
        let root = ComposeFileTests.repository
        var found: [String] = []
        for member in closure.members where member.package == "Foyer" {
            guard let folder = member.target.path else { continue }
            for source in member.target.sources ?? [] where source.hasSuffix(".swift") {
                let file = "\(folder)/\(source)"
                let text = try String(contentsOf: root.appendingPathComponent(file), encoding: .utf8)
                for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated()
                where importsSynchronization(String(line)) {
                    found.append("\(file):\(index + 1)")
                }
            }
        }
        return found
    }

    static func systemLibraryPaths(_ closure: DependencyClosure) -> [String] {
        closure.members.filter(\.target.isSystemLibrary).map { $0.path.joined(separator: " → ") }
    }

    @Test("no system-library target anywhere in FoyerClient's dependency closure")
    func clientClosureHasNoSystemLibrary() throws {
        let closure = try Self.closure(of: "FoyerClient")
        let offending = Self.systemLibraryPaths(closure)
        #expect(offending.isEmpty, "system libraries in FoyerClient's closure:\n\(offending.joined(separator: "\n"))")
        #expect(
            closure.unresolvedProducts.isEmpty,
            "products the check could not look into: \(closure.unresolvedProducts)"
        )
        // The walk really went through our targets and into the dependencies' packages.
        let names = Set(closure.members.map { "\($0.package)/\($0.target.name)" })
        for expected in [
            "Foyer/FoyerRPC", "Foyer/FoyerWire", "Foyer/FoyerSwiftLZ4", "Foyer/FoyerBase64URL", "swift-nio/NIOCore",
            "swift-crypto/Crypto", "swift-nio-ssl/NIOSSL",
        ] {
            #expect(names.contains(expected), "\(expected) is missing from the closure")
        }
    }

    @Test(
        "no Swift file of our own targets in FoyerClient's closure imports Synchronization (iOS 18 and macOS 15 only)"
    )
    func clientClosureAvoidsSynchronization() throws {
        let closure = try Self.closure(of: "FoyerClient")
        let offending = try Self.synchronizationImports(closure)
        #expect(
            offending.isEmpty,
            "imports of Synchronization in FoyerClient's closure, which must build for iOS 16:\n\(offending.joined(separator: "\n"))"
        )
        let scanned = Set(closure.members.filter { $0.package == "Foyer" }.map(\.target.name))
        for expected in ["FoyerClient", "FoyerRPC", "FoyerAPI", "FoyerWire", "FoyerBase64URL", "FoyerSwiftLZ4"] {
            #expect(scanned.contains(expected), "\(expected) was not scanned")
        }
    }

    @Test("the Synchronization check finds the services' imports, whatever the form of the import")
    func servicesSynchronizationIsCaught() throws {
        let gateway = try Self.synchronizationImports(Self.closure(of: "FoyerGateway"))
        #expect(gateway.contains { $0.hasPrefix("Services/Gateway/Library/") }, "\(gateway)")
        for line in [
            "import Synchronization", "public import Synchronization",
            "@preconcurrency internal import Synchronization",
            "import struct Synchronization.Mutex",
        ] {
            #expect(Self.importsSynchronization(line), "\(line)")
        }
        for line in ["import SynchronizationKit", "// import Synchronization", "import NIOConcurrencyHelpers"] {
            #expect(!Self.importsSynchronization(line), "\(line)")
        }
    }

    @Test("the check finds the system libraries the services link, with the path to each")
    func servicesClosureIsCaught() throws {
        let closure = try Self.closure(of: "FoyerServiceKit")
        let offending = Self.systemLibraryPaths(closure)
        #expect(offending.contains("FoyerServiceKit → FoyerLZ4 → CFoyerLZ4"), "\(offending)")
        let identity = try Self.systemLibraryPaths(Self.closure(of: "FoyerIdentity"))
        #expect(identity.contains { $0.hasSuffix("FoyerCrypto → CFoyerLibcrypto") }, "\(identity)")
    }
}
