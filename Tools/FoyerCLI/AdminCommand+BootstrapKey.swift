import ArgumentParser
import Foundation
import FoyerAPI
import FoyerClient

extension AdminCommand {
    /// `foyer admin bootstrap-key`: the first admin key, made by identity for whoever holds the cluster secret.
    struct BootstrapKey: JSONCommand {
        static let configuration = CommandConfiguration(
            commandName: "bootstrap-key",
            abstract: "Make an admin key by calling identity with the cluster secret (for the first key).",
            discussion: """
                The key is made and kept hashed by identity, as create-key does; it is recorded as made by \
                "cluster-secret". With --save-to the key is written to that file (mode 0600, which must not exist yet) \
                and not printed.
                Output: {"keyID","name","createdAt","createdBy","key"} ("savedTo" instead of "key" with --save-to).
                """
        )

        @Option(help: "A label for the key: who or what holds it (1-64 of A-Z a-z 0-9 . _ @ -).") var name: String
        @Option(help: ArgumentHelp("Write the key to this new file instead of printing it.", valueName: "path"))
        var saveTo: String?
        @OptionGroup var options: IdentityOptions

        func execute() async throws(FoyerError) -> JSONValue {
            let created = try await options.withClient { (client) async throws(FoyerError) in
                try await client.createAdminKey(name: name, createdBy: "cluster-secret")
            }
            var members: [(String, JSONValue)] = [
                ("keyID", .string(created.info.keyID)), ("name", .string(created.info.name)),
                ("createdAt", .time(milliseconds: created.info.createdAtMilliseconds)),
                ("createdBy", .string(created.info.createdBy)),
            ]
            guard let saveTo else { return .object(members + [("key", .string(created.key))]) }
            try Self.saveKey(created.key + "\n", toNewFile: saveTo)
            members.append(("savedTo", .string(saveTo)))
            return .object(members)
        }

        /// Writes `text` to a file that must not exist, readable by this user only.
        private static func saveKey(_ text: String, toNewFile path: String) throws(FoyerError) {
            let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL, 0o600)
            guard descriptor >= 0 else {
                throw .invalidInput("--save-to \(path): \(String(cString: strerror(errno)))")
            }
            defer { close(descriptor) }
            let bytes = Array(text.utf8)
            let written = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
            guard written == bytes.count, fsync(descriptor) == 0 else {
                throw .invalidInput("--save-to \(path): the key could not be written")
            }
        }
    }

    /// How `foyer admin bootstrap-key` reaches identity.
    struct IdentityOptions: ParsableArguments {
        @Option(
            help: ArgumentHelp(
                "identity's address, HOST:PORT. (env: FOYER_IDENTITY_ADDRESS; default: 127.0.0.1:7401)",
                valueName: "host:port"
            )
        )
        var identity: String?

        @OptionGroup var cluster: ClusterConnectionOptions

        @Option(help: ArgumentHelp("Seconds the call may take.", valueName: "seconds"))
        var timeout: Int = 30

        func withClient<Value>(
            _ body: (FoyerIdentityAdminClient) async throws(FoyerError) -> Value
        ) async throws(FoyerError) -> Value {
            try await cluster.run(
                FoyerIdentityAdminClient.self,
                address: identity,
                addressVariable: "FOYER_IDENTITY_ADDRESS",
                defaultPort: 7401,
                timeoutSeconds: timeout,
                logLabel: "foyer.cli.admin",
                body
            )
        }
    }
}
