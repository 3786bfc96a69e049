import Foundation
import FoyerAPI
import FoyerCrypto
import NIOCore

/// How a gateway replica stores a finished operation's answer in identity so that every replica finds it, without
/// identity (or anyone reading its database) learning the answer, which may hold the account's tokens.
///
/// From the cluster's operation-answer key (derived from the cluster secret, the same on every replica), the
/// operation's scoped id and the digest of the request (without its access token):
/// - `id` = HMAC(key, "id" ‖ 0 ‖ scoped id): where the answer is stored; unlinkable to the user without the key;
/// - `check` = HMAC(key, "check" ‖ 0 ‖ scoped id ‖ 0 ‖ request digest): tells a retry of the same request from
///   another request under the same operation id (refused `operation-reused`);
/// - the answer is sealed with AES-256-GCM under HMAC(key, "seal" ‖ 0 ‖ scoped id ‖ 0 ‖ request digest), a key of
///   its own per operation and request, with `id` as associated data.
struct SharedOperationAnswer {
    let id: [UInt8]
    let check: [UInt8]
    private let sealingKey: [UInt8]

    init(scopedOperationID: String, request: ByteBuffer, key: [UInt8]) {
        let operation = Array(scopedOperationID.utf8)
        let requestDigest = SHA256.hash(request.readableBytesView)
        func derive(_ label: String, _ parts: [[UInt8]]) -> [UInt8] {
            HMACSHA256.authenticationCode(key: key, message: parts.reduce(Array(label.utf8)) { $0 + [0] + $1 })
        }
        id = derive("id", [operation])
        check = derive("check", [operation, requestDigest])
        sealingKey = derive("seal", [operation, requestDigest])
    }

    /// What identity is asked to keep for `lifetime`.
    func record(of answer: ByteBuffer, lifetime: Duration) throws -> RememberOperationAnswerRequest {
        let sealed = try AES256GCM.seal(answer.readableBytesView, key: sealingKey, associatedData: id).combined
        return RememberOperationAnswerRequest(
            id: id,
            check: check,
            sealed: sealed,
            lifetimeSeconds: UInt64(
                max(1, min(lifetime.components.seconds, Int64(OperationAnswerLimits.lifetimeSecondsMax)))
            )
        )
    }

    enum Recalled {
        case answer(ByteBuffer)
        /// The operation id was used for a different request.
        case conflict
    }

    /// What identity's stored answer says for this request; nil when it does not open (damaged), which counts as
    /// nothing stored.
    func recall(_ found: RecalledOperationAnswer.Found) -> Recalled? {
        guard ConstantTime.equals(found.check, check) else { return .conflict }
        guard let box = try? AES256GCM.SealedBox(combined: found.sealed),
            let answer = try? AES256GCM.open(box, key: sealingKey, associatedData: id)
        else { return nil }
        return .answer(ByteBuffer(bytes: answer))
    }
}
