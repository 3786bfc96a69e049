import Foundation

/// A package as `swift package describe --type json` shows it: targets with their dependencies, products,
/// and the packages it depends on.
struct DescribedPackage: Decodable, Sendable {
    struct Target: Decodable, Sendable {
        let name: String
        /// `library`, `executable`, `test`, `system-target`, ...
        let type: String
        /// `SwiftTarget`, `ClangTarget`, `SystemLibraryTarget`, ...
        let moduleType: String?
        let targetDependencies: [String]?
        let productDependencies: [String]?
        /// The target's folder, relative to its package's root.
        let path: String?
        /// The target's source files, relative to `path`.
        let sources: [String]?

        var isSystemLibrary: Bool { type == "system-target" || moduleType == "SystemLibraryTarget" }
    }

    struct Product: Decodable, Sendable {
        let name: String
        let targets: [String]
    }

    struct Dependency: Decodable, Sendable {
        let identity: String
        let url: String?
        let path: String?
    }

    let name: String
    let path: String
    let targets: [Target]
    let products: [Product]
    let dependencies: [Dependency]

    func target(named name: String) -> Target? { targets.first { $0.name == name } }

    /// Runs `swift package describe --type json` in `directory`. It reads the manifest only: no build, no fetch.
    static func describe(_ directory: URL) throws -> DescribedPackage {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        // `--ignore-lock`: describing reads manifests only, and the build folder's lock is held by the `swift test` running us.
        process.arguments = ["swift", "package", "--ignore-lock", "describe", "--type", "json"]
        process.currentDirectoryURL = directory
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        let message = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw DescribeFailure(directory: directory.path, message: String(decoding: message, as: UTF8.self))
        }
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        return try decoder.decode(DescribedPackage.self, from: data)
    }

    struct DescribeFailure: Error, CustomStringConvertible {
        let directory: String
        let message: String
        var description: String { "swift package describe failed in \(directory): \(message)" }
    }
}

/// A target's dependency closure across packages: target dependencies within a package, and product dependencies
/// resolved to the product's targets in the package that provides it (one of the depending package's own
/// dependencies, described from its checkout under the root's `.build/checkouts`).
struct DependencyClosure {
    /// One target of the closure and the path that reaches it from the start (`FoyerClient → FoyerWire → ...`).
    struct Member {
        let package: String
        let target: DescribedPackage.Target
        let path: [String]
    }

    private(set) var members: [Member] = []
    /// Product dependencies whose package could not be found (no checkout): the walk could not look inside them.
    private(set) var unresolvedProducts: [String] = []

    private let root: DescribedPackage
    private let checkouts: URL
    private var packages: [String: DescribedPackage] = [:]

    init(of target: String, in root: DescribedPackage) throws {
        self.root = root
        self.checkouts = URL(fileURLWithPath: root.path).appendingPathComponent(".build/checkouts")
        packages[root.name] = root
        var seen: Set<String> = []
        try visit(package: root.name, target: target, path: [target], seen: &seen)
    }

    private mutating func visit(package: String, target name: String, path: [String], seen: inout Set<String>) throws {
        guard seen.insert("\(package)/\(name)").inserted, let described = packages[package],
            let target = described.target(named: name)
        else { return }
        members.append(Member(package: package, target: target, path: path))
        for dependency in target.targetDependencies ?? [] {
            try visit(package: package, target: dependency, path: path + [dependency], seen: &seen)
        }
        for productName in target.productDependencies ?? [] {
            guard let (provider, product) = try provider(of: productName, dependencyOf: described) else {
                unresolvedProducts.append("\(productName) (used by \(package)/\(name))")
                continue
            }
            for productTarget in product.targets {
                let step = "\(productTarget) (product \(productName) of \(provider))"
                try visit(package: provider, target: productTarget, path: path + [step], seen: &seen)
            }
        }
    }

    /// The package among `package`'s dependencies that provides the product `name`, described on first use.
    private mutating func provider(
        of name: String,
        dependencyOf package: DescribedPackage
    ) throws -> (String, DescribedPackage.Product)? {
        for dependency in package.dependencies {
            guard let described = try load(dependency) else { continue }
            if let product = described.products.first(where: { $0.name == name }) {
                return (described.name, product)
            }
        }
        return nil
    }

    private mutating func load(_ dependency: DescribedPackage.Dependency) throws -> DescribedPackage? {
        let directory: URL
        if let path = dependency.path {
            directory = URL(fileURLWithPath: path)
        } else if let url = dependency.url {
            var folder = URL(string: url)?.lastPathComponent ?? dependency.identity
            if folder.hasSuffix(".git") { folder.removeLast(4) }
            directory = checkouts.appendingPathComponent(folder)
        } else {
            return nil
        }
        guard FileManager.default.fileExists(atPath: directory.appendingPathComponent("Package.swift").path) else {
            return nil
        }
        if let known = packages.values.first(where: { $0.path == directory.path }) { return known }
        let described = try DescribedPackage.describe(directory)
        packages[described.name] = described
        return described
    }
}
