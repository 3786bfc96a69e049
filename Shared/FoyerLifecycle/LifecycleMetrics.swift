import CoreMetrics

/// The metrics of the sagas wherever they run (the gateway, cleanup).
enum LifecycleMetrics {
    /// `foyer_lifecycle_app_hook_calls_total{hook, outcome}`: calls of the app's merge and delete hooks, `ok` or
    /// `failed` (a refusal, a timeout, no connection); a failed call leaves its operation waiting.
    static func hookCalled(_ type: String, outcome: String) {
        Counter(
            label: "foyer_lifecycle_app_hook_calls_total",
            dimensions: [("hook", type == "user.merging" ? "merge" : "delete"), ("outcome", outcome)]
        ).increment()
    }
}
