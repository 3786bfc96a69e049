import ArgumentParser
import Foundation
import FoyerClient
import FoyerJSON

/// `foyer admin`: operators' commands. All but `bootstrap-key` call the gateway's admin API with an admin key
/// (docs/admin-openapi.yaml); `bootstrap-key` makes the first admin key by calling identity directly with the
/// cluster secret.
struct AdminCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "admin",
        abstract: "Administer the stack through the gateway's admin API (needs an admin key).",
        discussion: """
            Every command prints the API's JSON answer. The admin listener is the gateway's --admin-port; the key \
            is read from FOYER_ADMIN_KEY, else --admin-key-file, else FOYER_ADMIN_KEY_FILE, else .data/admin-key \
            (make one with `foyer admin bootstrap-key`, or `foyer admin create-key` with a key you have). Every \
            command but counts, keys and audit is written to the audit log with the key's id.
            """,
        subcommands: [
            Counts.self, User.self, Users.self, RevokeSessions.self, SetPlan.self, SetRoles.self, DeleteUser.self,
            RotateKeys.self, Deletions.self, Keys.self, CreateKey.self, RevokeKey.self, Audit.self, Events.self,
            Event.self, ReplayEvent.self, BootstrapKey.self,
        ]
    )

    /// How `foyer admin` reaches the admin API.
    struct APIOptions: ParsableArguments {
        @Option(
            help: ArgumentHelp(
                "The gateway's admin listener. (env: FOYER_ADMIN_URL; default: http://127.0.0.1:7481)",
                valueName: "url"
            )
        )
        var adminURL: String?

        @Option(
            help: ArgumentHelp(
                "A file holding the admin key. (env: FOYER_ADMIN_KEY_FILE; default: .data/admin-key; FOYER_ADMIN_KEY, the key itself, wins over both)",
                valueName: "path"
            )
        )
        var adminKeyFile: String?

        @Option(help: ArgumentHelp("Seconds the call may take.", valueName: "seconds"))
        var timeout: Int = 60

        /// Sends one request and prints nothing: answers the API's JSON.
        func call(
            _ verb: String,
            _ path: String,
            body: [String: FoyerJSON.JSONValue]? = nil
        ) async throws(FoyerError)
            -> JSONValue
        {
            let text = adminURL ?? GlobalOptions.environment("FOYER_ADMIN_URL") ?? "http://127.0.0.1:7481"
            guard let url = URL(string: text), url.scheme == "http" || url.scheme == "https" else {
                throw .invalidInput("--admin-url: '\(text)' is not an http(s) URL")
            }
            let client = FoyerAdminClient(baseURL: url, key: try key(), callTimeout: .seconds(max(1, timeout)))
            defer { client.shutdown() }
            return .raw(String(decoding: try await client.call(verb, path, body: body), as: UTF8.self))
        }

        private func key() throws(FoyerError) -> String {
            if let key = GlobalOptions.environment("FOYER_ADMIN_KEY") { return key }
            let path = adminKeyFile ?? GlobalOptions.environment("FOYER_ADMIN_KEY_FILE") ?? ".data/admin-key"
            guard let data = FileManager.default.contents(atPath: path) else {
                throw .invalidInput(
                    "no admin key: \(path) cannot be read (set FOYER_ADMIN_KEY or --admin-key-file, or make one with `foyer admin bootstrap-key`)"
                )
            }
            let key = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            guard !key.isEmpty else { throw .invalidInput("\(path) is empty") }
            return key
        }
    }

    struct Counts: JSONCommand {
        static let configuration = CommandConfiguration(
            abstract: "Live counts: guests, members, sign-ups and quota denials in the last hour, pending deletions.",
            discussion: "Output: the counts object of GET /admin/v1/counts."
        )
        @OptionGroup var api: APIOptions

        func execute() async throws(FoyerError) -> JSONValue {
            try await api.call("GET", "/admin/v1/counts")
        }
    }

    struct User: JSONCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show a user by uid or by email: state, credentials, sessions, plan and counters.",
            discussion: "Never tokens or secrets. Output: the user object of GET /admin/v1/users/{uid}."
        )
        @Argument(help: "The user's uid (or give --email).") var uid: String?
        @Option(help: "Find the user by this email instead.") var email: String?
        @OptionGroup var api: APIOptions

        func validate() throws {
            guard (uid == nil) != (email == nil) else { throw ValidationError("give a uid or --email, not both") }
        }

        func execute() async throws(FoyerError) -> JSONValue {
            if let email {
                return try await api.call("GET", FoyerAdminClient.path("/admin/v1/users", query: [("email", email)]))
            }
            return try await api.call("GET", "/admin/v1/users/" + FoyerAdminClient.segment(uid ?? ""))
        }
    }

    struct Users: JSONCommand {
        static let configuration = CommandConfiguration(
            abstract: "List users by age or last activity, a page at a time.",
            discussion: """
                Output: {"users":[{"uid","isAnonymous","state","createdAt","lastActivityAt"}],"next"}; pass next \
                as --after for the following page.
                """
        )
        @Option(help: "guests, members or all.") var kind = "guests"
        @Option(help: "created (sign-up time) or activity (last activity).") var order = "created"
        @Flag(help: "Newest first (default: oldest first).") var newest = false
        @Option(help: "Users per page, 1-1000.") var limit = 100
        @Option(help: "The next of the previous page.") var after: String?
        @OptionGroup var api: APIOptions

        func execute() async throws(FoyerError) -> JSONValue {
            let query: [(String, String?)] = [
                ("kind", kind), ("order", order), ("newest", newest ? "true" : nil), ("limit", String(limit)),
                ("after", after),
            ]
            return try await api.call("GET", FoyerAdminClient.path("/admin/v1/users", query: query))
        }
    }

    struct RevokeSessions: JSONCommand {
        static let configuration = CommandConfiguration(
            abstract: "Revoke every session of a user (they must sign in again).",
            discussion: "Output: {\"revoked\": true}."
        )
        @Argument(help: "The user's uid.") var uid: String
        @OptionGroup var api: APIOptions

        func execute() async throws(FoyerError) -> JSONValue {
            try await api.call("POST", "/admin/v1/users/\(FoyerAdminClient.segment(uid))/revoke-sessions")
        }
    }

    struct SetPlan: JSONCommand {
        static let configuration = CommandConfiguration(
            abstract: "Move a user to another plan (one guest-quota knows).",
            discussion: "Output: {\"plan\", \"previousPlan\"}."
        )
        @Argument(help: "The user's uid.") var uid: String
        @Argument(help: "The plan.") var plan: String
        @OptionGroup var api: APIOptions

        func execute() async throws(FoyerError) -> JSONValue {
            try await api.call(
                "PUT",
                "/admin/v1/users/\(FoyerAdminClient.segment(uid))/plan",
                body: ["plan": .string(plan)]
            )
        }
    }

    struct SetRoles: JSONCommand {
        static let configuration = CommandConfiguration(
            abstract: "Replace a user's app-defined roles (none: remove them all).",
            discussion: """
                Roles are the app's names (1-64 bytes of a-z 0-9 _ . - :, at most 16); the user's access tokens \
                carry them in the `roles` claim from the next one minted. Output: {"roles"}.
                """
        )
        @Argument(help: "The user's uid.") var uid: String
        @Argument(help: "The roles.") var roles: [String] = []
        @OptionGroup var api: APIOptions

        func execute() async throws(FoyerError) -> JSONValue {
            try await api.call(
                "PUT",
                "/admin/v1/users/\(FoyerAdminClient.segment(uid))/roles",
                body: ["roles": .array(roles.map(FoyerJSON.JSONValue.string))]
            )
        }
    }

    struct DeleteUser: JSONCommand {
        static let configuration = CommandConfiguration(
            abstract: "Delete a user with everything they own (the delete-everything saga).",
            discussion: "Cannot be undone. Output: {\"documentsDeleted\"}."
        )
        @Argument(help: "The user's uid.") var uid: String
        @Flag(help: "Confirm the deletion.") var yes = false
        @OptionGroup var api: APIOptions

        func validate() throws {
            guard yes else { throw ValidationError("deleting a user cannot be undone: add --yes to confirm") }
        }

        func execute() async throws(FoyerError) -> JSONValue {
            try await api.call("DELETE", "/admin/v1/users/" + FoyerAdminClient.segment(uid))
        }
    }

    struct RotateKeys: JSONCommand {
        static let configuration = CommandConfiguration(
            commandName: "rotate-keys",
            abstract: "Rotate the access-token signing key now.",
            discussion: """
                The new key is published (JWKS) at once and signs new access tokens 120 seconds later, when every \
                identity replica and gateway has had time to load it; the old key signs until then and stays \
                published until the tokens it signed have expired.
                Output: {"keyID"}: the new key's id (the tokens' "kid").
                """
        )
        @OptionGroup var api: APIOptions

        func execute() async throws(FoyerError) -> JSONValue {
            try await api.call("POST", "/admin/v1/signing-keys/rotate")
        }
    }

    struct Deletions: JSONCommand {
        static let configuration = CommandConfiguration(
            abstract: "The newest deletion records: pseudonymous id, reason, time.",
            discussion: "Output: {\"deletions\":[{\"pseudonymousID\",\"reason\",\"deletedAt\"}]}."
        )
        @Option(help: "Records, 1-1000.") var limit = 100
        @OptionGroup var api: APIOptions

        func execute() async throws(FoyerError) -> JSONValue {
            try await api.call("GET", FoyerAdminClient.path("/admin/v1/deletions", query: [("limit", String(limit))]))
        }
    }

    struct Keys: JSONCommand {
        static let configuration = CommandConfiguration(
            abstract: "List the admin keys (ids, names, who made them, when used; never the keys).",
            discussion:
                "Output: {\"keys\":[{\"keyID\",\"name\",\"createdAt\",\"createdBy\",\"revokedAt\",\"lastUsedAt\"}]}."
        )
        @OptionGroup var api: APIOptions

        func execute() async throws(FoyerError) -> JSONValue {
            try await api.call("GET", "/admin/v1/keys")
        }
    }

    struct CreateKey: JSONCommand {
        static let configuration = CommandConfiguration(
            commandName: "create-key",
            abstract: "Make a new admin key (printed once; only its hash is kept).",
            discussion: "Output: the key's record with \"key\", the key itself."
        )
        @Option(help: "A label for the key: who or what holds it (1-64 of A-Z a-z 0-9 . _ @ -).") var name: String
        @OptionGroup var api: APIOptions

        func execute() async throws(FoyerError) -> JSONValue {
            try await api.call("POST", "/admin/v1/keys", body: ["name": .string(name)])
        }
    }

    struct RevokeKey: JSONCommand {
        static let configuration = CommandConfiguration(
            commandName: "revoke-key",
            abstract: "Revoke an admin key (at once at this gateway, within 10 s at the others).",
            discussion: "Output: the key's record with \"revokedAt\"."
        )
        @Argument(help: "The key's id.") var keyID: String
        @OptionGroup var api: APIOptions

        func execute() async throws(FoyerError) -> JSONValue {
            try await api.call("DELETE", "/admin/v1/keys/" + FoyerAdminClient.segment(keyID))
        }
    }

    struct Audit: JSONCommand {
        static let configuration = CommandConfiguration(
            abstract: "The audit log of admin actions, newest first.",
            discussion: """
                Output: {"actions":[{"id","at","keyID","keyName","action","target","outcome"}],"next"}; pass next \
                as --before for older entries.
                """
        )
        @Option(help: "Entries older than this id.") var before: UInt64?
        @Option(help: "Entries, 1-1000.") var limit = 100
        @OptionGroup var api: APIOptions

        func execute() async throws(FoyerError) -> JSONValue {
            let query: [(String, String?)] = [("before", before.map(String.init)), ("limit", String(limit))]
            return try await api.call("GET", FoyerAdminClient.path("/admin/v1/audit", query: query))
        }
    }
}
