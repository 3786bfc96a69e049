import FoyerAPI
import FoyerCleanup
import FoyerRPC
import FoyerStorage
import FoyerTestSupport
import FoyerWire
import Logging
import NIOCore
import ServiceLifecycle
import Testing

@Suite("The cleanup service")
struct ServiceTests {
    @Test("Run in a ServiceGroup, the loop sweeps at start, and graceful shutdown stops server, loop and clients")
    func loopRunsAndStops() async throws {
        try await withCluster(.sqlite) { cluster in
            let guest = try await cluster.newGuest(documents: 1)
            cluster.advance(days: 31)
            var configuration = cluster.cleanupConfiguration(replica: "looping")
            configuration.sweepInterval = .seconds(3600)
            let service = try await CleanupService.make(
                configuration: configuration,
                server: testServerConfiguration(service: "cleanup"),
                logger: TestLogging.logger("foyer.test.cleanup")
            )
            let reports = service.sweepReports()
            let group = ServiceGroup(
                configuration: .init(
                    services: service.services.map { .init(service: $0) },
                    logger: TestLogging.logger("foyer.test.group")
                )
            )
            try await withThrowingTaskGroup(of: Void.self) { tasks in
                tasks.addTask { try await group.run() }
                var iterator = reports.makeAsyncIterator()
                let first = await iterator.next()
                #expect(first?.expiredGuests == 1)
                #expect(try await cluster.state(of: guest.uid) == nil)
                #expect(await service.status().lastSweep == first)
                await group.triggerGracefulShutdown()
                try await tasks.waitForAll()
            }
            try await service.close()
        }
    }

    @Test("A configuration it cannot use is refused before anything is opened")
    func refusesBadConfiguration() async throws {
        let dummy = RPCClientConfiguration(
            host: "127.0.0.1",
            port: 1,
            serviceName: "x",
            peerName: "y",
            clusterSecret: nil
        )
        let database = try DatabaseConfiguration.parse(
            "sqlite:/nonexistent/dir/never.sqlite",
            dataDirectory: "",
            defaultFileName: ""
        )
        var configuration = CleanupConfiguration(
            database: database,
            identity: dummy,
            guestQuota: dummy,
            userData: dummy
        )
        #expect(throws: Never.self) { try configuration.validate() }
        let cases: [(inout CleanupConfiguration) -> Void] = [
            { $0.batchSize = 0 }, { $0.batchSize = 1001 }, { $0.pagesPerSweep = 0 }, { $0.guestTTL = .zero },
            { $0.sweepInterval = .zero }, { $0.recordRetention = .seconds(-1) }, { $0.replicaID = "" },
            { $0.pseudonymKey = [1, 2, 3] }, { $0.claimLifetime = .zero },
            // Shorter than identity's activity-recording interval: a guest in use could look idle.
            { $0.guestTTL = .seconds(599) },
        ]
        for adjust in cases {
            var bad = configuration
            adjust(&bad)
            await #expect(throws: CleanupConfigurationError.invalidSetting) {
                _ = try await CleanupService.make(
                    configuration: bad,
                    server: testServerConfiguration(service: "cleanup"),
                    logger: TestLogging.logger("foyer.test.cleanup")
                )
            }
        }
        var benchmark = configuration
        benchmark.guestTTL = .seconds(1)
        benchmark.allowsShortGuestTTL = true
        #expect(throws: Never.self) { try benchmark.validate() }
        configuration.guestTTL = .seconds(600)
        #expect(throws: Never.self) { try configuration.validate() }
        configuration.pseudonymKey = try CleanupConfiguration.pseudonymKey(base64URL: String(repeating: "A", count: 43))
        #expect(configuration.pseudonymKey?.count == 32)
        #expect(throws: CleanupConfigurationError.invalidSetting) {
            try CleanupConfiguration.pseudonymKey(base64URL: "c2hvcnQ")
        }
    }

    @Test("Sweep reports and status answers round-trip on the wire")
    func wireRoundTrip() throws {
        let report = SweepReport(
            dryRun: false,
            startedAtMilliseconds: 1_700_000_000_000,
            finishedAtMilliseconds: 1_700_000_000_250,
            expiredGuests: 300,
            stuckFinished: 2,
            errors: 1,
            lastError: "deleting an expired guest: unavailable",
            skipped: 5,
            recordsPurged: 70_000
        )
        #expect(try SweepReport(decoding: report.encoded()) == report)
        #expect(report.durationMilliseconds == 250)
        let status = CleanupStatusResponse(running: true, lastSweep: report)
        #expect(try CleanupStatusResponse(decoding: status.encoded()) == status)
        var truncated = report.encoded()
        truncated.moveWriterIndex(to: truncated.writerIndex - 1)
        #expect(throws: (any Error).self) { try SweepReport(decoding: truncated) }
    }
}
