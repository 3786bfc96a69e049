import Foundation
import FoyerAPI
import FoyerGuestQuota
import FoyerRPC
import FoyerStorage
import FoyerTestSupport
import Testing

@Suite("plans from configuration")
struct PlanCatalogTests {
    private func writeFile(_ text: String) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("plans-\(UUID().uuidString).json").path
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    @Test("the defaults: guest 20 documents, 1 MiB, no import; member 100,000 documents, 1 GiB, import")
    func defaults() throws {
        let plans = PlanCatalog.defaults.plans
        #expect(plans["guest"] == Plan(counters: ["documents": 20, "bytes": 1_048_576], features: ["import": false]))
        #expect(
            plans["member"]
                == Plan(counters: ["documents": 100_000, "bytes": 1_073_741_824], features: ["import": true])
        )
        try GuestQuotaConfiguration(database: DatabaseConfiguration(engine: .sqlite(path: "/tmp/unused"))).validate()
    }

    @Test("a plans file is read")
    func loadsFile() throws {
        let path = try writeFile(
            """
            {
              "guest": { "counters": { "documents": 5, "photos": 2 }, "features": { "import": false } },
              "pro":   { "counters": { "documents": 1000 }, "features": { "import": true, "share": true } }
            }
            """
        )
        defer { try? FileManager.default.removeItem(atPath: path) }
        let catalog = try GuestQuotaConfiguration.loadPlans(from: path)
        #expect(catalog.plans["guest"] == Plan(counters: ["documents": 5, "photos": 2], features: ["import": false]))
        #expect(catalog.plans["pro"]?.features == ["import": true, "share": true])
        #expect(catalog.featureNames == ["import", "share"])
    }

    @Test(
        "a bad plans file is refused with an error naming the file and the problem",
        arguments: [
            ("{", "JSON"),
            ("[]", "top level"),
            (#"{"guest": {"counter": {"documents": 1}}}"#, "unknown field 'counter'"),
            (#"{"guest": {"counters": {"documents": -1}}}"#, "between 0 and 2^62"),
            (#"{"guest": {"counters": {"documents": 1.5}}}"#, "guest.counters.documents"),
            (#"{"guest": {"counters": {"documents": true}}}"#, "guest.counters.documents"),
            (#"{"guest": {"features": {"import": 1}}}"#, "guest.features.import"),
            (#"{"Guest Plan": {}}"#, "plan name 'Guest Plan'"),
            (#"{"guest": {"counters": {"Docs!": 1}}}"#, "counter name 'Docs!'"),
            ("{}", "no plans"),
        ]
    )
    func refusesBadFile(text: String, expected: String) throws {
        let path = try writeFile(text)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let error = #expect(throws: GuestQuotaConfigurationError.invalidPlans) {
            try GuestQuotaConfiguration.loadPlans(from: path)
        }
        #expect(error?.message.contains(path) == true, "\(error?.message ?? "")")
        #expect(error?.message.contains(expected) == true, "\(error?.message ?? "") should mention \(expected)")
    }

    @Test("a missing plans file is unreadable-plans-file")
    func missingFile() {
        #expect(throws: GuestQuotaConfigurationError.unreadablePlansFile) {
            try GuestQuotaConfiguration.loadPlans(from: "/nonexistent/plans.json")
        }
    }

    @Test("make refuses a guest plan that is not configured, before opening anything")
    func guestPlanMustExist() async throws {
        var configuration = GuestQuotaConfiguration(
            database: DatabaseConfiguration(engine: .sqlite(path: "/nonexistent/dir/x.sqlite"))
        )
        configuration.guestPlan = "visitor"
        await #expect(throws: GuestQuotaConfigurationError.invalidSetting) {
            try await GuestQuotaService.make(
                configuration: configuration,
                server: testServerConfiguration(service: "guest-quota"),
                logger: TestLogging.logger("foyer.test.guest-quota")
            )
        }
    }

    @Test("a service started with a plans file enforces its limits")
    func customPlansEnforced() async throws {
        let plans = PlanCatalog(plans: [
            "guest": Plan(counters: ["photos": 2]),
            "member": Plan(counters: ["photos": 10], features: ["share": true]),
        ])
        try await withGuestQuota(.sqlite, configure: { $0.plans = plans }) { quota async throws in
            let uid = try await quota.open()
            _ = try await quota.consume(uid, "photos", 2)
            await expectStatus(GuestQuotaStatus.quotaExceeded) { try await quota.consume(uid, "photos", 1) }
            await expectStatus(GuestQuotaStatus.unknownCounter) { try await quota.consume(uid, "documents", 1) }
        }
    }

    @Test("make run's plans (examples/plans.json): the built-in plans plus the stories' transactions and uploads")
    func makeRunPlans() throws {
        let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let path = repository.appendingPathComponent("examples/plans.json").path
        let catalog = try GuestQuotaConfiguration.loadPlans(from: path)
        for (name, plan) in PlanCatalog.defaults.plans {
            let example = try #require(catalog.plans[name])
            #expect(example.features == plan.features)
            for (counter, limit) in plan.counters { #expect(example.counters[counter] == limit, "\(name) \(counter)") }
        }
        #expect(catalog.plans["guest"]?.counters["transactions"] == 20)
        #expect(catalog.plans["guest"]?.counters["uploads"] == 3)
        #expect(catalog.plans["member"]?.counters["transactions"] ?? 0 > 20)
        #expect(catalog.plans["member"]?.counters["uploads"] ?? 0 > 3)
    }
}
