import Foundation
import FoyerAPI
import FoyerCrypto
import FoyerIdentity
import FoyerRPC
import FoyerTestSupport
import FoyerWire
import NIOCore
import Testing

/// The gateways' shared memory of finished operations, as identity keeps it (`rememberOperationAnswer`, or with a
/// saga's last step) and answers it (the first step of an operation: `link`, `deleteAccount`).
@Suite("The gateways' shared memory of finished operations")
struct OperationAnswerTests {
    private func record(_ id: [UInt8], sealed: String, lifetime: UInt64 = 600) -> RememberOperationAnswerRequest {
        RememberOperationAnswerRequest(
            id: id,
            check: SHA256.hash(Array("check of \(sealed)".utf8)),
            sealed: Array(sealed.utf8),
            lifetimeSeconds: lifetime
        )
    }

    /// What `deleteAccount` answers from memory for `id`: the stored answer comes back before the token is even
    /// read, so a token that is not one is refused only when nothing is stored.
    private func recall(_ identity: IdentityHarness, _ id: [UInt8]) async throws -> RememberedAnswer? {
        let operation = CallerOperation(accessToken: "not a token", requirement: .any, operationID: "op", answerID: id)
        do {
            let step = try await identity.call(
                IdentityMethods.deleteAccount,
                DeleteAccountRequest(operation: operation, guestOnly: true)
            )
            guard case .recalled(let found) = step else { throw TestFailure("deleteAccount answered \(step)") }
            return found
        } catch let error as RPCError where error.status == IdentityStatus.invalidToken {
            return nil
        }
    }

    @Test(
        "an answer comes back as stored; the first stays; it expires, is replaced after, and is pruned",
        arguments: TestEngine.allCases
    )
    func rememberAndRecall(engine: TestEngine) async throws {
        try await withIdentity(engine) { identity in
            let id = SecureRandom.bytes(count: 32)
            #expect(try await recall(identity, id) == nil)

            let first = record(id, sealed: "first answer", lifetime: 600)
            try await identity.call(IdentityMethods.rememberOperationAnswer, first)
            #expect(try await recall(identity, id) == .init(check: first.check, sealed: first.sealed))

            // Another replica storing its own answer for the same id changes nothing.
            try await identity.call(IdentityMethods.rememberOperationAnswer, record(id, sealed: "second answer"))
            #expect(try await recall(identity, id)?.sealed == first.sealed)
            #expect(try await recall(identity, SecureRandom.bytes(count: 32)) == nil)

            identity.clock.advance(by: .seconds(600))
            #expect(try await recall(identity, id) == nil)
            let later = record(id, sealed: "a later operation's answer", lifetime: 60)
            try await identity.call(IdentityMethods.rememberOperationAnswer, later)
            #expect(try await recall(identity, id)?.sealed == later.sealed)

            identity.clock.advance(by: .seconds(61))
            try await identity.service.runMaintenance()
            #expect(try await identity.count("identity_operation_answers") == 0)
        }
    }

    @Test("ids and checks are 32 bytes, answers 1 byte to 64 KiB, lifetimes 1 s to a day: the decoder refuses more")
    func limits() throws {
        func decodes(_ request: RememberOperationAnswerRequest) -> Bool {
            var buffer = request.encoded()
            return (try? RememberOperationAnswerRequest(from: &buffer)) != nil
        }
        let digest = [UInt8](repeating: 7, count: 32)
        #expect(decodes(.init(id: digest, check: digest, sealed: [1], lifetimeSeconds: 1)))
        #expect(
            decodes(
                .init(id: digest, check: digest, sealed: .init(repeating: 1, count: 64 << 10), lifetimeSeconds: 86_400)
            )
        )
        #expect(!decodes(.init(id: Array(digest.prefix(31)), check: digest, sealed: [1], lifetimeSeconds: 1)))
        #expect(!decodes(.init(id: digest, check: digest + [0], sealed: [1], lifetimeSeconds: 1)))
        #expect(!decodes(.init(id: digest, check: digest, sealed: [], lifetimeSeconds: 1)))
        #expect(
            !decodes(
                .init(id: digest, check: digest, sealed: .init(repeating: 1, count: (64 << 10) + 1), lifetimeSeconds: 1)
            )
        )
        #expect(!decodes(.init(id: digest, check: digest, sealed: [1], lifetimeSeconds: 0)))
        #expect(!decodes(.init(id: digest, check: digest, sealed: [1], lifetimeSeconds: 86_401)))

        let recalled = DeletionStep.recalled(RememberedAnswer(check: digest, sealed: [1, 2, 3]))
        var answer = recalled.encoded()
        #expect(try DeletionStep(from: &answer) == recalled)
        var empty = DeletionStep.recalled(RememberedAnswer(check: digest, sealed: [])).encoded()
        #expect((try? DeletionStep(from: &empty)) == nil)
    }
}
