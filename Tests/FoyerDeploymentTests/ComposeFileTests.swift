import Foundation
import FoyerStackProcesses
import Testing

/// No Docker engine runs where the tests run, so `compose/` is checked by other means: the compose file against the
/// Compose Specification's JSON schema, and against the executables it runs (every setting it names must be one the
/// executable documents in `--help`), and the Dockerfile against the compose file.
@Suite("Deployment files")
struct ComposeFileTests {
    static let repository: URL = {
        var directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        while directory.path != "/" {
            if FileManager.default.fileExists(atPath: directory.appendingPathComponent("Package.swift").path),
                FileManager.default.fileExists(atPath: directory.appendingPathComponent("compose").path)
            {
                return directory
            }
            directory = directory.deletingLastPathComponent()
        }
        return directory
    }()
    static var composeFile: URL { repository.appendingPathComponent("compose/docker-compose.yml") }
    static var dockerfile: URL { repository.appendingPathComponent("compose/Dockerfile") }

    /// The Foyer services of the compose file: name, command, environment (merge keys resolved), and the rest.
    struct ComposeService {
        let name: String
        let command: [String]
        let environment: [String: String]
        let dependsOn: Set<String>
        let healthCheck: [String]
        let ports: [String]
    }

    /// The compose file as PyYAML reads it (merge keys `<<` resolved), as JSON.
    static func composeDocument() throws -> [String: Any] {
        let script = "import json, sys, yaml; json.dump(yaml.safe_load(open(sys.argv[1])), sys.stdout)"
        let output = try run("/usr/bin/env", ["python3", "-c", script, composeFile.path])
        try #require(
            output.status == 0,
            "reading the compose file failed (is PyYAML installed? `make deps`): \(output.text)"
        )
        let document = try JSONSerialization.jsonObject(with: Data(output.text.utf8)) as? [String: Any]
        return try #require(document)
    }

    static func foyerServices() throws -> [ComposeService] {
        let services = try #require(try composeDocument()["services"] as? [String: [String: Any]])
        return services.compactMap { name, service in
            guard let command = service["command"] as? [String] else { return nil }
            let environment = (service["environment"] as? [String: Any] ?? [:]).mapValues { "\($0)" }
            let dependsOn: Set<String>
            if let map = service["depends_on"] as? [String: Any] {
                dependsOn = Set(map.keys)
            } else {
                dependsOn = Set(service["depends_on"] as? [String] ?? [])
            }
            let health = (service["healthcheck"] as? [String: Any])?["test"] as? [String] ?? []
            let ports = (service["ports"] as? [Any] ?? []).map { "\($0)" }
            return ComposeService(
                name: name,
                command: command,
                environment: environment,
                dependsOn: dependsOn,
                healthCheck: health,
                ports: ports
            )
        }.sorted { $0.name < $1.name }
    }

    @Test("docker-compose.yml is valid under the Compose Specification schema")
    func schema() throws {
        let output = try Self.run(
            "/usr/bin/env",
            ["python3", "-m", "check_jsonschema", "--builtin-schema", "vendor.compose-spec", Self.composeFile.path]
        )
        #expect(output.status == 0, "check-jsonschema (installed by `make deps`): \(output.text)")
    }

    @Test(
        "compose runs the five services, each from its executable, with a health check and what it calls started first"
    )
    func services() throws {
        let services = try Self.foyerServices()
        #expect(services.map(\.name) == ["cleanup", "gateway", "guest-quota", "identity", "user-data"])
        let calls: [String: Set<String>] = [
            "cleanup": ["identity", "guest-quota", "user-data"],
            "gateway": ["identity", "guest-quota", "user-data", "cleanup"],
        ]
        for service in services {
            #expect(service.command == [service.name], "\(service.name) runs its own executable")
            #expect(service.healthCheck == ["CMD", service.name, "--check-health"], "\(service.name)'s health check")
            #expect(
                service.dependsOn.isSuperset(of: calls[service.name] ?? []),
                "\(service.name) depends on what it calls"
            )
            #expect(
                service.environment["FOYER_DATABASE"]?.hasPrefix("postgres://") == true,
                "\(service.name) on PostgreSQL"
            )
            #expect(service.environment["FOYER_CLUSTER_SECRET"] != nil, "\(service.name) shares the cluster secret")
            #expect(service.environment["FOYER_HOST"] == "0.0.0.0", "\(service.name) listens on the compose network")
            #expect(service.ports.isEmpty == (service.name != "gateway"), "only the gateway is published")
            let metrics = try #require(service.environment["FOYER_METRICS_PORT"], "\(service.name) serves metrics")
            #expect(!service.ports.contains { $0.contains(metrics) }, "\(service.name)'s metrics are not published")
        }
        let addresses = services.flatMap { service in
            service.environment.filter { $0.key.hasSuffix("_ADDRESS") }.map { (service.name, $0.key, $0.value) }
        }
        let ports = Dictionary(uniqueKeysWithValues: services.map { ($0.name, $0.environment["FOYER_PORT"] ?? "") })
        for (caller, variable, address) in addresses {
            let parts = address.split(separator: ":").map(String.init)
            #expect(
                parts.count == 2 && ports[parts[0]] == parts[1],
                "\(caller) \(variable)=\(address) names a service and its port"
            )
        }
    }

    @Test("every FOYER_ setting compose gives a service is one its executable documents in --help")
    func settingsExist() throws {
        let bin = try StackProcesses.locateExecutables()
        for service in try Self.foyerServices() {
            let help = try Self.run(bin.appendingPathComponent(service.name).path, ["--help"])
            #expect(help.status == 0)
            let documented = Set(help.text.matches(of: /FOYER_[A-Z0-9_]+/).map { String($0.output) })
            let unknown = service.environment.keys.filter { $0.hasPrefix("FOYER_") && !documented.contains($0) }
            #expect(unknown.isEmpty, "\(service.name) does not know \(unknown.sorted())")
        }
    }

    @Test("compose never runs local mode or the outbox: identity sends email links by SMTP over TLS with AUTH")
    func mailIsProduction() throws {
        let services = try Self.foyerServices()
        for service in services {
            #expect(service.environment["FOYER_LOCAL_MODE"] == nil, "\(service.name) sets FOYER_LOCAL_MODE")
            #expect(!service.command.contains("--local-mode"), "\(service.name) runs with --local-mode")
            #expect(!service.command.contains { $0.contains("outbox") }, "\(service.name)'s command names the outbox")
            #expect(service.environment["FOYER_MAILER"] != "outbox", "\(service.name) uses the outbox mailer")
        }
        let identity = try #require(services.first { $0.name == "identity" })
        #expect(identity.environment["FOYER_MAILER"] == "smtp")
        for setting in ["FOYER_SMTP_HOST", "FOYER_SMTP_USERNAME", "FOYER_SMTP_PASSWORD", "FOYER_MAIL_FROM"] {
            #expect(identity.environment[setting] != nil, "identity's \(setting) is named")
        }
        let security = identity.environment["FOYER_SMTP_SECURITY"] ?? ""
        #expect(security.contains("starttls") || security.contains("tls"), "SMTP over TLS: \(security)")
        #expect(!security.contains("none"))
    }

    @Test("identity seals its signing keys with a key-encryption key file that compose mounts as a secret")
    func signingKeyEncryptionKeyIsASecret() throws {
        let document = try Self.composeDocument()
        let services = try #require(document["services"] as? [String: [String: Any]])
        let identity = try #require(services["identity"])
        let environment = (identity["environment"] as? [String: Any] ?? [:]).mapValues { "\($0)" }
        let path = try #require(environment["FOYER_SIGNING_KEY_ENCRYPTION_KEY_FILE"])
        let mounted = try #require(identity["secrets"] as? [String])
        let secret = try #require(mounted.first { path == "/run/secrets/\($0)" }, "\(path) is a secret of identity's")
        let declared = try #require(document["secrets"] as? [String: [String: Any]])
        let file = try #require(declared[secret]?["file"] as? String)
        #expect(file.contains("${FOYER_SIGNING_KEY_ENCRYPTION_KEY_FILE:?"), "the operator must name the file: \(file)")
    }

    @Test("the gateway's published listeners speak TLS with a certificate and key compose mounts as secrets")
    func gatewayTLSIsOnByDefault() throws {
        let document = try Self.composeDocument()
        let services = try #require(document["services"] as? [String: [String: Any]])
        let gateway = try #require(services["gateway"])
        let environment = (gateway["environment"] as? [String: Any] ?? [:]).mapValues { "\($0)" }
        let mounted = try #require(gateway["secrets"] as? [String])
        let declared = try #require(document["secrets"] as? [String: [String: Any]])
        for setting in ["FOYER_TLS_CERTIFICATE", "FOYER_TLS_KEY"] {
            let path = try #require(environment[setting], "the gateway's \(setting) is set")
            let secret = try #require(
                mounted.first { path == "/run/secrets/\($0)" },
                "\(path) is a secret of the gateway's"
            )
            let file = try #require(declared[secret]?["file"] as? String)
            #expect(file.contains(":?"), "the operator must name the file: \(file)")
        }
    }

    @Test("the Dockerfile builds and installs every executable compose runs")
    func dockerfile() throws {
        let text = try String(contentsOf: Self.dockerfile, encoding: .utf8)
        let built = Set(text.matches(of: /--product ([a-z-]+)/).map { String($0.output.1) })
        let copied = try #require(text.firstMatch(of: /for name in ([a-z -]+); do cp/)).output.1.split(separator: " ")
        for service in try Self.foyerServices() {
            #expect(built.contains(service.name), "the image builds \(service.name)")
            #expect(copied.contains(Substring(service.name)), "the image installs \(service.name)")
        }
        #expect(text.contains("COPY Package.swift"), "the build stage has the package manifest")
        for directory in ["Shared", "Services", "Tools", "Tests"] {
            #expect(
                text.contains("COPY \(directory) \(directory)"),
                "the build stage has \(directory)/ (Package.swift names targets there)"
            )
        }
    }

    // MARK: Running tools

    struct Output {
        let status: Int32
        let text: String
    }

    static func run(_ executable: String, _ arguments: [String]) throws -> Output {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Output(status: process.terminationStatus, text: String(decoding: data, as: UTF8.self))
    }
}
