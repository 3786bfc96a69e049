import FoyerAPI
import FoyerRPC
import FoyerTestSupport
import Testing

@Suite("Finished operations are forgotten after a week")
struct FinishedOperationRetentionTests {
    @Test(
        "A finished deletion answers its repeat for a week; then maintenance forgets it and a repeat is user-not-found",
        arguments: TestEngine.allCases
    )
    func forgottenAfterAWeek(engine: TestEngine) async throws {
        try await withIdentity(engine) { identity in
            let guest = try await identity.newGuest()
            let finish = FinishDeleteRequest(uid: guest.uid, operationID: "delete-op")
            try await identity.call(
                IdentityMethods.beginDelete,
                BeginDeleteRequest(uid: guest.uid, operationID: "delete-op")
            )
            try await identity.call(IdentityMethods.finishDelete, finish)
            #expect(try await identity.count("identity_finished_operations") == 1)

            identity.clock.advance(by: .seconds(7 * 86_400 - 1))
            try await identity.service.runMaintenance()
            try await identity.call(IdentityMethods.finishDelete, finish)

            identity.clock.advance(by: .seconds(2))
            try await identity.service.runMaintenance()
            #expect(try await identity.count("identity_finished_operations") == 0)
            #expect(
                await identity.status(IdentityMethods.finishDelete, finish)
                    == IdentityStatus.userNotFound
            )
        }
    }
}
