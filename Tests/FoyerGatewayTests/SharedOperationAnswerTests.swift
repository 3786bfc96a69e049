import FoyerAPI
import FoyerCrypto
import NIOCore
import Testing

@testable import FoyerGateway

/// How a gateway seals an answer for identity and opens it again (docs/PROTOCOL.md §15).
@Suite("Operation answers shared through identity")
struct SharedOperationAnswerTests {
    let key = SecureRandom.bytes(count: 32)
    let request = ByteBuffer(string: "link-or-merge request without its token")
    let answer = ByteBuffer(string: "the encoded answer, tokens included")

    private func stored(_ shared: SharedOperationAnswer) throws -> RememberedAnswer {
        let record = try shared.record(of: answer, lifetime: .seconds(600))
        #expect(record.lifetimeSeconds == 600)
        return .init(check: record.check, sealed: record.sealed)
    }

    @Test("another replica with the cluster's key opens the answer of the same operation and request")
    func sameRequestOpens() throws {
        let shared = SharedOperationAnswer(scopedOperationID: "gw-op", request: request, key: key)
        let found = try stored(shared)
        #expect(!found.sealed.contains(subsequence: Array("tokens".utf8)))
        let elsewhere = SharedOperationAnswer(scopedOperationID: "gw-op", request: request, key: key)
        guard case .answer(let opened) = elsewhere.recall(found) else {
            Issue.record("the same operation and request did not open the answer")
            return
        }
        #expect(opened == answer)
    }

    @Test("the same operation id with another request is a conflict; ids differ per operation and per key")
    func otherRequestConflicts() throws {
        let found = try stored(SharedOperationAnswer(scopedOperationID: "gw-op", request: request, key: key))
        let other = SharedOperationAnswer(scopedOperationID: "gw-op", request: ByteBuffer(string: "another"), key: key)
        guard case .conflict = other.recall(found) else {
            Issue.record("another request under the same id was not refused")
            return
        }
        let first = SharedOperationAnswer(scopedOperationID: "gw-op", request: request, key: key)
        #expect(other.id == first.id)
        #expect(SharedOperationAnswer(scopedOperationID: "gw-op2", request: request, key: key).id != first.id)
        #expect(
            SharedOperationAnswer(scopedOperationID: "gw-op", request: request, key: SecureRandom.bytes(count: 32)).id
                != first.id
        )
    }

    @Test("a tampered answer counts as none; an answer under another key is never taken for this one")
    func otherKeyOrTamperingIsNone() throws {
        let shared = SharedOperationAnswer(scopedOperationID: "gw-op", request: request, key: key)
        var found = try stored(shared)
        found.sealed[found.sealed.count / 2] ^= 1
        #expect(shared.recall(found) == nil)

        let foreign = try stored(
            SharedOperationAnswer(scopedOperationID: "gw-op", request: request, key: SecureRandom.bytes(count: 32))
        )
        // The check differs too (it is keyed): a foreign answer reads as a conflict, never as this answer.
        guard case .conflict = shared.recall(foreign) else {
            Issue.record("an answer of another key was taken for this one")
            return
        }
    }
}

extension Array where Element == UInt8 {
    fileprivate func contains(subsequence: [UInt8]) -> Bool {
        guard subsequence.count <= count else { return false }
        return (0...(count - subsequence.count)).contains { Array(self[$0..<($0 + subsequence.count)]) == subsequence }
    }
}
