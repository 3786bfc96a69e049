public import ArgumentParser
import Foundation
public import FoyerLifecycle
import FoyerWebhooks

/// The app's merge and delete hooks, for the executables that run the sagas (the gateway and cleanup, which must be
/// given the same ones). Each setting also comes from the environment variable its help names.
public struct AppHookOptions: ParsableArguments {
    @Option(
        help: """
            The app's merge hook: called (signed, user.merging) with the guest, the account and the operation before \
            a merge finishes; the merge waits until it answers 2xx. https, or http to a loopback host. \
            (env: FOYER_MERGE_HOOK_URL; default: none)
            """
    )
    var mergeHookUrl: String?

    @Option(
        help: """
            The app's delete hook: called (signed, user.deleting) with the uid, the operation and the reason before a \
            deletion finishes; the deletion waits until it answers 2xx. (env: FOYER_DELETE_HOOK_URL; default: none)
            """
    )
    var deleteHookUrl: String?

    @Option(
        help: """
            A file holding the hooks' signing secret, whsec_ and the base64 of 24-64 random bytes; a second line adds \
            a second secret. (env: FOYER_HOOK_SECRET_FILE)
            """
    )
    var hookSecretFile: String?

    @Option(help: "Seconds one hook call may take. (env: FOYER_HOOK_TIMEOUT_SECONDS; default: 10)")
    var hookTimeoutSeconds: Int?

    @Option(
        help: """
            Minutes an operation may wait on the app before it is reported overdue (still retried). \
            (env: FOYER_HOOK_DEADLINE_MINUTES; default: 1440)
            """
    )
    var hookDeadlineMinutes: Int?

    public init() {}

    /// The settings, or nil when neither hook is set.
    public func settings() throws -> AppHookSettings? {
        let reader = SettingsReader()
        let merge = try reader.value(mergeHookUrl, .text("--merge-hook-url", "FOYER_MERGE_HOOK_URL"))
        let delete = try reader.value(deleteHookUrl, .text("--delete-hook-url", "FOYER_DELETE_HOOK_URL"))
        guard merge != nil || delete != nil else { return nil }
        guard let file = try reader.value(hookSecretFile, .text("--hook-secret-file", "FOYER_HOOK_SECRET_FILE")) else {
            throw ValidationError("--merge-hook-url and --delete-hook-url need --hook-secret-file")
        }
        guard let text = try? String(contentsOfFile: file, encoding: .utf8) else {
            throw ValidationError("cannot read the hook secret file \(file)")
        }
        var settings: AppHookSettings
        do {
            settings = AppHookSettings(
                merge: try merge.map(Webhook.endpoint),
                delete: try delete.map(Webhook.endpoint),
                secrets: try Webhook.secrets(fromFileText: text)
            )
        } catch let error as WebhookError {
            throw ValidationError(error.description)
        }
        let timeout = Setting<Int>.int("--hook-timeout-seconds", "FOYER_HOOK_TIMEOUT_SECONDS", in: 1...300)
        if let seconds = try reader.value(hookTimeoutSeconds, timeout) { settings.timeout = .seconds(seconds) }
        let deadline = Setting<Int>.int("--hook-deadline-minutes", "FOYER_HOOK_DEADLINE_MINUTES", in: 1...525_600)
        if let minutes = try reader.value(hookDeadlineMinutes, deadline) { settings.deadline = .seconds(minutes * 60) }
        if let problem = settings.problem() { throw ValidationError(problem) }
        return settings
    }
}
