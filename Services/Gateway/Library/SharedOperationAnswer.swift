import Foundation
import FoyerAPI
import FoyerCrypto
import FoyerRPC
import FoyerWire
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
struct SharedOperationAnswer: Sendable {
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
    func recall(_ found: RememberedAnswer) -> Recalled? {
        guard ConstantTime.equals(found.check, check) else { return .conflict }
        guard let box = try? AES256GCM.SealedBox(combined: found.sealed),
            let answer = try? AES256GCM.open(box, key: sealingKey, associatedData: id)
        else { return nil }
        return .answer(ByteBuffer(bytes: answer))
    }
}

/// A client operation that may end the caller's sessions (link-or-merge, delete-everything, sign-out), run once
/// per (caller, operation id): what its body needs to ask identity and to keep its answer.
struct OnceOperation: Sendable {
    /// The caller, as the token's signature alone says (a merge or deletion may have revoked the token since).
    let caller: Caller
    /// The operation id scoped to the caller, under which the services know the operation.
    let scopedID: String
    let shared: SharedOperationAnswer
    let lifetime: Duration
    /// Where identity looks for an earlier answer: the shared id, or a fresh one when the stored answer did not open.
    let answerID: [UInt8]

    /// The first step's description of the caller and the operation.
    func request(token: String, requirement: TokenRequirement) -> CallerOperation {
        CallerOperation(accessToken: token, requirement: requirement, operationID: scopedID, answerID: answerID)
    }

    /// What identity keeps of `answer`.
    func record<Answer: WireMessage>(of answer: Answer) throws -> RememberOperationAnswerRequest {
        try shared.record(of: answer.encoded(), lifetime: lifetime)
    }
}

/// How an operation's body ended.
enum OnceOutcome<Answer: Sendable>: Sendable {
    /// identity had the answer of an earlier attempt.
    case recalled(RememberedAnswer)
    /// The body answered; the answer is still to be kept.
    case answered(Answer)
    /// The body answered and identity kept the answer with the operation's last step.
    case remembered(Answer)
}

extension GatewayCore {
    /// Runs `body` once per (caller, operation id) across the gateway replicas: a retry with the same id and the
    /// same request gets the first answer, from this replica's memory or from identity, which every replica asks
    /// in the operation's first call (`link`, `deleteAccount`) and which keeps the answer with the operation's last
    /// step (or, for an answer without a saga, `rememberOperationAnswer`); the same id with another request is
    /// refused `operation-reused`. The caller is identified by the token's signature alone, so a guest whose merge
    /// revoked its token still gets its answer on retry.
    func once<Answer: WireMessage>(
        _ operationID: String,
        token: String,
        fingerprint: ByteBuffer,
        context: RPCContext,
        _ body: (OnceOperation) async throws -> OnceOutcome<Answer>
    ) async throws -> Answer {
        let caller = try await verifySignature(token)
        let scopedID = scopedOperation(operationID, uid: caller.uid)
        let conflict = RPCError(GatewayStatus.operationReused, "this operation id was used for a different request")
        switch results.lookup(scopedID, request: fingerprint, now: now) {
        case .answer(let bytes): return try Answer(decoding: bytes)
        case .conflict: throw conflict
        case .none: break
        }
        let shared = SharedOperationAnswer(
            scopedOperationID: scopedID,
            request: fingerprint,
            key: configuration.operationAnswerKey
        )
        // Every operation run here may revoke the caller's sessions (sign-out, deletion, merge), whether it
        // finishes or fails half-way: what this replica knew of them is forgotten either way.
        defer { sessions.forget(uid: caller.uid, now: now) }
        var answerID = shared.id
        for _ in 0..<2 {
            let operation = OnceOperation(
                caller: caller,
                scopedID: scopedID,
                shared: shared,
                lifetime: configuration.rememberedOperationLifetime,
                answerID: answerID
            )
            let answer: Answer
            switch try await body(operation) {
            case .recalled(let stored):
                switch shared.recall(stored) {
                case .answer(let bytes):
                    results.remember(scopedID, request: fingerprint, answer: bytes, now: now)
                    return try Answer(decoding: bytes)
                case .conflict:
                    throw conflict
                case nil:
                    // Damaged: run the operation again (its steps are idempotent), looking under an id nothing is
                    // stored under.
                    context.logger.warning("an operation answer stored in identity did not open; running it again")
                    answerID = (0..<OperationAnswerLimits.digestByteCount).map { _ in UInt8.random(in: .min ... .max) }
                    continue
                }
            case .answered(let answered):
                answer = answered
                do {
                    _ = try await identity.call(
                        IdentityMethods.rememberOperationAnswer,
                        try operation.record(of: answer),
                        options: CallOptions(deadline: context.deadline)
                    )
                } catch {
                    // The operation is done and its answer goes back; only a retry on another replica would re-run
                    // its (idempotent) steps instead of getting this answer.
                    context.logger.warning(
                        "could not store an operation's answer in identity",
                        metadata: ["error": "\(error)"]
                    )
                }
            case .remembered(let remembered):
                answer = remembered
            }
            results.remember(scopedID, request: fingerprint, answer: answer.encoded(), now: now)
            return answer
        }
        throw RPCError(.internal, "identity answered a stored answer under a fresh id")
    }
}
