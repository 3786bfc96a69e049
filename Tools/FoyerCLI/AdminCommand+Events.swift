import ArgumentParser
import FoyerClient

/// `foyer admin events | event | replay-event`: identity's events to the app's backend (webhooks).
extension AdminCommand {
    struct Events: JSONCommand {
        static let configuration = CommandConfiguration(
            abstract: "List the events sent (or to be sent) to the app's webhook endpoints, newest first.",
            discussion: """
                Output: {"events":[{"id","position","type","uid","sequence","occurredAt","state","attempts",\
                "nextAttemptAt","deliveredAt","lastError","payload"}],"next"}; pass next as --before for older ones.
                """
        )
        @Option(help: "Only this user's events.") var uid: String?
        @Option(help: "Only events in this state: pending, delivered or failed.") var state: String?
        @Option(help: "Events older than this position.") var before: UInt64?
        @Option(help: "Events, 1-500.") var limit = 100
        @OptionGroup var api: AdminCommand.APIOptions

        func execute() async throws(FoyerError) -> JSONValue {
            let query: [(String, String?)] = [
                ("uid", uid), ("state", state), ("before", before.map(String.init)), ("limit", String(limit)),
            ]
            return try await api.call("GET", FoyerAdminClient.path("/admin/v1/events", query: query))
        }
    }

    struct Event: JSONCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show one event: its delivery state, attempts, last error and payload.",
            discussion: "Output: the event object of GET /admin/v1/events/{id}."
        )
        @Argument(help: "The event's id (evt_...).") var id: String
        @OptionGroup var api: AdminCommand.APIOptions

        func execute() async throws(FoyerError) -> JSONValue {
            try await api.call("GET", "/admin/v1/events/" + FoyerAdminClient.segment(id))
        }
    }

    struct ReplayEvent: JSONCommand {
        static let configuration = CommandConfiguration(
            commandName: "replay-event",
            abstract: "Send an event again, with the same id (a failed one, or one the app lost).",
            discussion: "The event is pending again and due now. Output: the event object, state \"pending\"."
        )
        @Argument(help: "The event's id (evt_...).") var id: String
        @OptionGroup var api: AdminCommand.APIOptions

        func execute() async throws(FoyerError) -> JSONValue {
            try await api.call("POST", "/admin/v1/events/" + FoyerAdminClient.segment(id) + "/replay")
        }
    }
}
