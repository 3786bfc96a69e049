import Foundation
import FoyerAPI
import FoyerCleanup
import FoyerRPC
import FoyerTestSupport
import FoyerWire
import Testing

@Suite("Deletion records")
struct DeletionRecordTests {
    @Test(
        "Records keep a keyed hash of the uid, never the uid or the operation id, once per operation, and go after the retention",
        arguments: TestEngine.allCases
    )
    func pseudonymousAndPurged(engine: TestEngine) async throws {
        try await withCluster(engine) { cluster in
            try await cluster.withCleanup(configure: { $0.pseudonymKey = testPseudonymKey }) { cleanup in
                // Given: the gateway records two deletions, one of them twice (a retry).
                let uid = "Uid4Test_abcdefghijklmn"
                let other = "Other_uid_opqrstuvwxyz0"
                try await cleanup.recordDeletion(uid: uid, operationID: "op-delete-\(uid)", reason: .userRequest)
                try await cleanup.recordDeletion(uid: uid, operationID: "op-delete-\(uid)", reason: .userRequest)
                cluster.advance(days: 1)
                try await cleanup.recordDeletion(uid: other, operationID: "shared-op-id", reason: .merge)
                // The same operation id from another user is another record (clients choose operation ids).
                try await cleanup.recordDeletion(uid: uid, operationID: "shared-op-id", reason: .merge)

                // Then
                let records = try await cleanup.deletions()
                #expect(records.count == 3)
                #expect(
                    records.map(\.pseudonymousID).sorted()
                        == [
                            pseudonymousID(of: other), pseudonymousID(of: uid), pseudonymousID(of: uid),
                        ].sorted()
                )
                #expect(
                    records.first?.deletedAtMilliseconds ?? 0 > records.last?.deletedAtMilliseconds ?? 0,
                    "newest first"
                )
                for record in records {
                    #expect(record.pseudonymousID.count == 64)
                    #expect(!record.pseudonymousID.contains(uid) && !record.pseudonymousID.contains(other))
                }
                let stored = try await cluster.cleanupTableText()
                for secret in [uid, other, "op-delete", "shared-op-id"] { #expect(!stored.contains(secret)) }
                #expect(try await cleanup.deletions(limit: 1).count == 1)

                // When: the default retention (731 days) has not quite passed for the first record, nothing goes...
                cluster.advance(days: 730, seconds: -1)
                #expect(try await cleanup.sweep().recordsPurged == 0)
                #expect(try await cleanup.deletions().count == 3)

                // ...and when it has passed for the first record only, that one goes.
                cluster.advance(seconds: 2)
                let report = try await cleanup.sweep()

                // Then
                #expect(report.recordsPurged == 1)
                #expect(try await cleanup.deletions().count == 2)
                cluster.advance(days: 1)
                #expect(try await cleanup.sweep().recordsPurged == 2)
                #expect(try await cleanup.deletions().isEmpty)
            }
        }
    }

    @Test("Deletion records are kept at least 24 months by default, whatever the day they are made")
    func defaultRetention() throws {
        let retention = CleanupConfiguration.defaultRecordRetention
        #expect(retention == .seconds(731 * 86_400))
        let configuration = CleanupConfiguration(
            database: try .parse(
                "sqlite:unused.sqlite",
                dataDirectory: "/nonexistent",
                defaultFileName: "unused.sqlite"
            ),
            identity: RPCClientConfiguration(
                host: "127.0.0.1",
                port: 1,
                serviceName: "identity",
                peerName: "test",
                clusterSecret: nil
            ),
            guestQuota: RPCClientConfiguration(
                host: "127.0.0.1",
                port: 1,
                serviceName: "guest-quota",
                peerName: "test",
                clusterSecret: nil
            ),
            userData: RPCClientConfiguration(
                host: "127.0.0.1",
                port: 1,
                serviceName: "user-data",
                peerName: "test",
                clusterSecret: nil
            )
        )
        #expect(configuration.recordRetention == retention)
        // 24 calendar months from any day of a leap cycle end within the retention.
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let start = try #require(calendar.date(from: DateComponents(year: 2027, month: 1, day: 1)))
        for day in 0..<(4 * 366) {
            let made = try #require(calendar.date(byAdding: .day, value: day, to: start))
            let twoYears = try #require(calendar.date(byAdding: .month, value: 24, to: made))
            #expect(twoYears.timeIntervalSince(made) <= Double(retention.components.seconds), "\(made)")
        }
    }

    @Test("recordDeletion refuses an empty uid or operation id; listDeletions a limit outside 1–1000")
    func badInput() async throws {
        try await withCluster(.sqlite) { cluster in
            try await cluster.withCleanup { cleanup in
                #expect(
                    await failureStatus { try await cleanup.recordDeletion(uid: "", operationID: "op", reason: .ttl) }
                        == .invalidArgument
                )
                #expect(
                    await failureStatus { try await cleanup.recordDeletion(uid: "u", operationID: "", reason: .ttl) }
                        == .invalidArgument
                )
                #expect(await failureStatus { try await cleanup.deletions(limit: 0) } == .invalidArgument)
                #expect(await failureStatus { try await cleanup.deletions(limit: 1001) } == .invalidArgument)
                let records = try await cleanup.deletions()
                #expect(records.isEmpty)
            }
        }
    }

    @Test(
        "Without a configured key, replicas of one database share a stored key; another deployment's key gives other ids"
    )
    func storedKey() async throws {
        try await withCluster(.sqlite) { cluster in
            let uid = "SameUid_0123456789abcde"
            let first = try await cluster.withCleanup(replica: "one") { cleanup in
                try await cleanup.recordDeletion(uid: uid, operationID: "op-1", reason: .ttl)
                return try await cleanup.deletions()[0].pseudonymousID
            }
            let second = try await cluster.withCleanup(replica: "two") { cleanup in
                try await cleanup.recordDeletion(uid: uid, operationID: "op-2", reason: .ttl)
                return try await cleanup.deletions().map(\.pseudonymousID)
            }
            #expect(second == [first, first])
            #expect(first != pseudonymousID(of: uid))
        }
    }
}
