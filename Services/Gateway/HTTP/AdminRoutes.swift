import FoyerAPI
import FoyerGateway
import FoyerJSON
import FoyerWire
import NIOCore

/// What an admin route's handler gets: the request's inputs, the admin key that made it, and its deadline.
struct AdminCall: Sendable {
    let call: HTTPCall
    let caller: AdminKeyInfo
    let deadline: NIODeadline
    let admin: GatewayAdmin
    /// The address of the connection's peer.
    let source: String

    /// The path parameter `name` (the route's template guarantees it).
    func parameter(_ name: String) -> String { call.pathParameters[name] ?? "" }

    /// The query's `name` as a count in `range`, `defaultValue` when absent.
    func count(_ name: String, in range: ClosedRange<Int>, default defaultValue: Int) throws(HTTPProblem) -> Int {
        guard let text = call.query[name] else { return defaultValue }
        guard let value = Int(text), range.contains(value) else {
            throw HTTPProblem.invalidArgument(
                "\(name) must be a whole number in \(range.lowerBound)...\(range.upperBound)"
            )
        }
        return value
    }

    /// The query's `name` as one of `choices`, `defaultValue` when absent.
    func choice<Value>(
        _ name: String,
        _ choices: [String: Value],
        default defaultValue: Value
    ) throws(HTTPProblem)
        -> Value
    {
        guard let text = call.query[name] else { return defaultValue }
        guard let value = choices[text] else {
            throw HTTPProblem.invalidArgument("\(name) must be one of \(choices.keys.sorted().joined(separator: ", "))")
        }
        return value
    }
}

/// One route of the admin API: verb, path template (`{name}` is one segment) and handler, which answers the HTTP
/// status of its success and the JSON body.
struct AdminRoute: Sendable {
    let verb: String
    let path: String
    let run: @Sendable (AdminCall) async throws -> (Int, JSONValue)

    init(_ verb: String, _ path: String, run: @escaping @Sendable (AdminCall) async throws -> (Int, JSONValue)) {
        self.verb = verb
        self.path = path
        self.run = run
    }
}

/// The admin API (docs/admin-openapi.yaml).
enum AdminRoutes {
    static let all: [AdminRoute] = [
        AdminRoute("GET", "/admin/v1/counts") { request in
            (200, AdminJSON.counts(try await request.admin.counts(deadline: request.deadline)))
        },
        AdminRoute("GET", "/admin/v1/users") { request in
            if let email = request.call.query["email"] {
                let view = try await request.admin.user(email: email, by: request.caller, deadline: request.deadline)
                return (200, AdminJSON.user(view))
            }
            let page = try await request.admin.users(
                try listUsersRequest(request),
                by: request.caller,
                deadline: request.deadline
            )
            return (200, AdminJSON.users(page))
        },
        AdminRoute("GET", "/admin/v1/users/{uid}") { request in
            let view = try await request.admin.user(
                uid: request.parameter("uid"),
                by: request.caller,
                deadline: request.deadline
            )
            return (200, AdminJSON.user(view))
        },
        AdminRoute("POST", "/admin/v1/users/{uid}/revoke-sessions") { request in
            try await request.admin.revokeSessions(
                uid: request.parameter("uid"),
                by: request.caller,
                deadline: request.deadline
            )
            return (200, ["revoked": true])
        },
        AdminRoute("PUT", "/admin/v1/users/{uid}/plan") { request in
            let plan = try GatewayJSON.required("plan", request.call.body)
            let changed = try await request.admin.changePlan(
                uid: request.parameter("uid"),
                plan: plan,
                by: request.caller,
                deadline: request.deadline
            )
            return (200, ["plan": .string(changed.plan), "previousPlan": .string(changed.previousPlan)])
        },
        AdminRoute("PUT", "/admin/v1/users/{uid}/roles") { request in
            let roles = try AdminJSON.roles(request.call.body)
            try await request.admin.setRoles(
                uid: request.parameter("uid"),
                roles: roles,
                by: request.caller,
                deadline: request.deadline
            )
            return (200, ["roles": .array(Set(roles).sorted().map(JSONValue.string))])
        },
        AdminRoute("DELETE", "/admin/v1/users/{uid}") { request in
            let deleted = try await request.admin.delete(
                uid: request.parameter("uid"),
                by: request.caller,
                deadline: request.deadline
            )
            return (200, ["documentsDeleted": JSONValue(deleted)])
        },
        AdminRoute("POST", "/admin/v1/signing-keys/rotate") { request in
            let keyID = try await request.admin.rotateSigningKey(by: request.caller, deadline: request.deadline)
            return (200, ["keyID": .string(keyID)])
        },
        AdminRoute("GET", "/admin/v1/deletions") { request in
            let limit = try request.count("limit", in: 1...1000, default: 100)
            let records = try await request.admin.deletions(
                limit: UInt64(limit),
                by: request.caller,
                deadline: request.deadline
            )
            return (200, AdminJSON.deletions(records))
        },
        AdminRoute("GET", "/admin/v1/operations") { request in
            let limit = try request.count("limit", in: 1...IdentityLimits.listCountMax, default: 100)
            let olderThan = try request.count("olderThanSeconds", in: 0...31_536_000, default: 0)
            let page = try await request.admin.operationsInProgress(
                olderThanSeconds: UInt64(olderThan),
                limit: UInt32(limit),
                deadline: request.deadline
            )
            return (200, AdminJSON.operations(page, now: request.admin.now, deadline: request.admin.operationDeadline))
        },
        AdminRoute("GET", "/admin/v1/keys") { request in
            let keys = try await request.admin.adminKeys(deadline: request.deadline)
            return (200, ["keys": .array(keys.keys.map(AdminJSON.key))])
        },
        AdminRoute("POST", "/admin/v1/keys") { request in
            let created = try await request.admin.createAdminKey(
                name: try GatewayJSON.required("name", request.call.body),
                by: request.caller,
                deadline: request.deadline
            )
            guard case .object(var members) = AdminJSON.key(created.info) else { return (201, .null) }
            members["key"] = .string(created.key)
            return (201, .object(members))
        },
        AdminRoute("DELETE", "/admin/v1/keys/{keyID}") { request in
            let info = try await request.admin.revokeAdminKey(
                request.parameter("keyID"),
                by: request.caller,
                deadline: request.deadline
            )
            return (200, AdminJSON.key(info))
        },
        AdminRoute("GET", "/admin/v1/outbox") { request in
            // The messages hold working sign-in links: only for an operator on the machine itself, even when the
            // listener was opened to a network with --admin-insecure.
            guard AdminHTTPConfiguration.isLoopback(request.source) else {
                throw HTTPProblem(
                    status: 403,
                    name: "permission-denied",
                    detail: "the outbox is shown to callers on loopback only"
                )
            }
            let messages = try await request.admin.outbox(
                to: request.call.query["to"],
                limit: UInt32(try request.count("limit", in: 1...100, default: 20)),
                by: request.caller,
                deadline: request.deadline
            )
            return (200, AdminJSON.outbox(messages))
        },
        AdminRoute("GET", "/admin/v1/events") { request in
            let page = try await request.admin.events(
                try listEventsRequest(request),
                by: request.caller,
                deadline: request.deadline
            )
            return (200, AdminJSON.events(page))
        },
        AdminRoute("GET", "/admin/v1/events/{id}") { request in
            let event = try await request.admin.event(
                id: request.parameter("id"),
                by: request.caller,
                deadline: request.deadline
            )
            return (200, AdminJSON.event(event))
        },
        AdminRoute("POST", "/admin/v1/events/{id}/replay") { request in
            let event = try await request.admin.replayEvent(
                id: request.parameter("id"),
                by: request.caller,
                deadline: request.deadline
            )
            return (200, AdminJSON.event(event))
        },
        AdminRoute("GET", "/admin/v1/audit") { request in
            let limit = try request.count("limit", in: 1...IdentityLimits.listCountMax, default: 100)
            var before: UInt64?
            if let text = request.call.query["before"] {
                guard let id = UInt64(text) else {
                    throw HTTPProblem.invalidArgument("before must be an audit entry's id")
                }
                before = id
            }
            let page = try await request.admin.auditLog(
                ListAdminActionsRequest(before: before, limit: UInt32(limit)),
                deadline: request.deadline
            )
            return (200, AdminJSON.actions(page))
        },
    ]

    /// `GET /admin/v1/events`'s query as identity's request: `uid`, `state` (pending, delivered, failed), `limit`
    /// (1–500, default 100), `before` (the `next` of the previous page).
    private static func listEventsRequest(_ request: AdminCall) throws(HTTPProblem) -> ListEventsRequest {
        let states = Dictionary(uniqueKeysWithValues: EventState.allCases.map { ($0.description, Optional($0)) })
        var before: UInt64?
        if let text = request.call.query["before"] {
            guard let position = UInt64(text) else { throw HTTPProblem.invalidArgument("before must be a position") }
            before = position
        }
        return ListEventsRequest(
            uid: request.call.query["uid"],
            state: try request.choice("state", states, default: nil),
            before: before,
            limit: UInt32(try request.count("limit", in: 1...EventLimits.pageCountMax, default: 100))
        )
    }

    /// `GET /admin/v1/users`'s query as identity's request: `kind` (guests, members, all; default guests), `order`
    /// (created, activity; default created), `newest` (true: newest first; default false), `limit` (1–1000,
    /// default 100), `after` (the `next` of the previous page).
    private static func listUsersRequest(_ request: AdminCall) throws(HTTPProblem) -> ListUsersRequest {
        let kind = try request.choice(
            "kind",
            ["guests": UserKind.guests, "members": .members, "all": .all],
            default: .guests
        )
        let order = try request.choice(
            "order",
            ["created": UserOrder.createdAt, "activity": .lastActivity],
            default: .createdAt
        )
        let newestFirst = try request.choice("newest", ["true": true, "false": false], default: false)
        let limit = try request.count("limit", in: 1...IdentityLimits.listCountMax, default: 100)
        var after: UserCursor?
        if let text = request.call.query["after"] {
            guard let cursor = AdminJSON.cursor(text) else {
                throw HTTPProblem.invalidArgument("after must be the next of a previous page")
            }
            after = cursor
        }
        return ListUsersRequest(
            kind: kind,
            order: order,
            newestFirst: newestFirst,
            limit: UInt32(limit),
            after: after
        )
    }
}
