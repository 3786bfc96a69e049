public import Foundation
public import FoyerAPI
import FoyerJSON
public import FoyerRPC
public import FoyerWebhooks
import NIOCore

/// Where a deployment's app wants to hear of a merge or a deletion before it finishes: the merge hook moves the
/// guest's rows in the app's own database to the account, the delete hook deletes the user's rows. Each is an
/// HTTPS endpoint called as a step of the saga, signed as Standard Webhooks are; the saga does not finish (the guest
/// is not deleted, the deletion is not reported complete) until the app answers 2xx. Both are optional.
public struct AppHookSettings: Sendable {
    /// The merge hook (https, or http to a loopback host); nil: merges do not wait on the app.
    public var merge: URL?
    /// The delete hook; nil: deletions do not wait on the app.
    public var delete: URL?
    /// The signing keys, newest first (`Webhook.secrets(fromFileText:)`).
    public var secrets: [[UInt8]]
    /// How long one call may take (less when the client's request has less time left). Default 10 seconds.
    public var timeout: Duration = .seconds(10)
    /// How long an operation may wait on the app before it is reported overdue to operators (it is still retried).
    /// Default 24 hours.
    public var deadline: Duration = .seconds(86_400)

    public init(merge: URL?, delete: URL?, secrets: [[UInt8]]) {
        self.merge = merge
        self.delete = delete
        self.secrets = secrets
    }

    /// What the settings break, or nil.
    public func problem() -> String? {
        if merge == nil && delete == nil { return "app hooks need a merge or a delete hook URL" }
        if secrets.isEmpty || secrets.count > Webhook.secretsMax {
            return "app hooks need 1-\(Webhook.secretsMax) secrets"
        }
        if timeout < .seconds(1) || timeout > .seconds(300) { return "the app hook timeout must be 1-300 seconds" }
        if deadline < .seconds(60) { return "the app hook deadline must be a minute at least" }
        return nil
    }
}

/// Calls the app's hooks for the sagas.
///
/// The body is JSON (`{"id", "type", "timestamp", "data"}`, as identity's events), the headers those of Standard
/// Webhooks. `webhook-id` is the same on every attempt for one operation (`hook_<operation>`), so the app makes its
/// work idempotent by it; a retry comes after a timeout too, while the first attempt may still be running.
public struct AppHooks: Sendable {
    public let settings: AppHookSettings
    private let http: any HTTPClient
    private let now: @Sendable () -> Date

    public init(settings: AppHookSettings, http: any HTTPClient, now: @escaping @Sendable () -> Date = Date.init) {
        self.settings = settings
        self.http = http
        self.now = now
    }

    /// Whether `saga` calls the app (the deployment has its hook).
    func calls(_ saga: Saga) -> Bool {
        saga == .merge ? settings.merge != nil : settings.delete != nil
    }

    /// Asks the app to move the guest's rows to the account (`user.merging`).
    func merging(
        guest: String,
        into target: String,
        operation: String,
        policy: MergePolicy,
        options: CallOptions
    )
        async throws
    {
        guard let url = settings.merge else { return }
        try await call(
            url,
            type: "user.merging",
            operation: operation,
            data: [
                "guestUid": .string(guest), "targetUid": .string(target), "operationId": .string(operation),
                "policy": .string(policy.description),
            ],
            options: options
        )
    }

    /// Asks the app to delete the user's rows (`user.deleting`).
    func deleting(uid: String, operation: String, reason: DeletionReason, options: CallOptions) async throws {
        guard let url = settings.delete else { return }
        try await call(
            url,
            type: "user.deleting",
            operation: operation,
            data: ["uid": .string(uid), "operationId": .string(operation), "reason": .string(reason.description)],
            options: options
        )
    }

    /// One signed POST; anything but a 2xx answer in time is `operation-in-progress`, with a hint of when to ask
    /// again.
    private func call(
        _ url: URL,
        type: String,
        operation: String,
        data: [String: JSONValue],
        options: CallOptions
    ) async throws {
        let id = "hook_" + operation
        let sent = now()
        let timestamp = Int64(sent.timeIntervalSince1970)
        let body = String(
            decoding: JSONValue.object([
                "id": .string(id), "type": .string(type),
                "timestamp": .string(RFC3339.milliseconds(UInt64(max(0, sent.timeIntervalSince1970 * 1000)))),
                "data": .object(data),
            ]).bytes,
            as: UTF8.self
        )
        var timeout = settings.timeout
        if let deadline = options.deadline {
            let left = Duration.nanoseconds((deadline - NIODeadline.now()).nanoseconds)
            // Keep a moment of the client's time to answer "in progress" rather than run out.
            timeout = min(timeout, max(.milliseconds(100), left - .milliseconds(250)))
        }
        let refusal: String
        do {
            let response = try await http.post(
                url,
                body: Array(body.utf8),
                headers: [
                    "content-type": "application/json",
                    "webhook-id": id,
                    "webhook-timestamp": "\(timestamp)",
                    "webhook-signature": WebhookSignature.header(
                        secrets: settings.secrets,
                        id: id,
                        timestamp: timestamp,
                        body: body
                    ),
                ],
                timeout: timeout
            )
            if (200..<300).contains(response.status) {
                LifecycleMetrics.hookCalled(type, outcome: "ok")
                return
            }
            refusal = "answered \(response.status)"
        } catch let error as CancellationError {
            throw error
        } catch {
            refusal = "did not answer: \(error)"
        }
        LifecycleMetrics.hookCalled(type, outcome: "failed")
        throw RPCError(
            GatewayStatus.operationInProgress,
            "the operation waits on the app: its \(type == "user.merging" ? "merge" : "delete") hook \(refusal)",
            retryAfterMilliseconds: UInt32(Self.retryAfter.components.seconds * 1000)
        )
    }

    /// The hint given with `operation-in-progress`.
    public static let retryAfter: Duration = .seconds(5)
}
