import FoyerAPI
import FoyerJSON

/// The admin API's events (docs/admin-openapi.yaml, `Event`).
extension AdminJSON {
    static func event(_ event: EventInfo) -> JSONValue {
        JSONValue.object([
            "id": .string(event.id), "position": JSONValue(event.position), "type": .string(event.type),
            "uid": .string(event.uid), "sequence": JSONValue(event.sequence),
            "occurredAt": .string(RFC3339.milliseconds(event.occurredAtMilliseconds)),
            "state": .string(event.state.description), "attempts": JSONValue(UInt64(event.attempts)),
            "nextAttemptAt": event.state == .pending
                ? .string(RFC3339.milliseconds(event.nextAttemptAtMilliseconds)) : .null,
            "deliveredAt": event.deliveredAtMilliseconds.map { .string(RFC3339.milliseconds($0)) } ?? .null,
            "lastError": JSONValue(event.lastError),
            "payload": JSONValue.parse(Array(event.body.utf8)) ?? .string(event.body),
        ]).compacted
    }

    static func events(_ page: EventPage) -> JSONValue {
        ["events": .array(page.events.map(event)), "next": page.next.map { JSONValue($0) } ?? .null]
    }
}
