import ArgumentParser
import FoyerAPI
import FoyerBase64URL
import FoyerClient

struct DeviceKeyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "device-key",
        abstract: """
            A device key: a P-256 key in a file (mode 0600) that brings the same guest back after its session \
            file is lost.
            """,
        subcommands: [Register.self, SignIn.self]
    )

    struct Register: JSONCommand {
        static let configuration = CommandConfiguration(
            commandName: "register",
            abstract: "Register the key in --key-file for the session's guest, making the key if the file is missing.",
            discussion: """
                The key file holds the raw private key: whoever reads it can sign in as the guest. Members are \
                refused (wrong-account-kind); a key registered to another guest is credential-already-in-use.
                Output: {"uid", "keyId"} (keyId: base64url).
                """
        )

        @OptionGroup var global: GlobalOptions

        @Option(help: "The device key's file (created with mode 0600 if missing).")
        var keyFile: String

        func execute() async throws(FoyerError) -> JSONValue {
            try await CommandContext.run(global) { (context) async throws(FoyerError) in
                let session = try context.requireSession()
                let keyID = try await context.client.registerDeviceKey(in: FileDeviceKeyStore(path: keyFile))
                return .object([("uid", .string(session.uid)), ("keyId", .string(Base64URL.encode(keyID)))])
            }
        }
    }

    struct SignIn: JSONCommand {
        static let configuration = CommandConfiguration(
            commandName: "sign-in",
            abstract: "Sign in to the guest that registered the key in --key-file (a fresh challenge, signed).",
            discussion: """
                The session file then holds that guest's session. A key file that is missing is invalid-input.
                Output: the session, {"uid", "isAnonymous", "sessionId", "accessTokenExpiresAt", \
                "refreshTokenExpiresAt"}.
                """
        )

        @OptionGroup var global: GlobalOptions

        @Option(help: "The device key's file.")
        var keyFile: String

        func execute() async throws(FoyerError) -> JSONValue {
            try await CommandContext.run(global) { (context) async throws(FoyerError) in
                guard
                    let session = try await context.client.signInWithDeviceKey(from: FileDeviceKeyStore(path: keyFile))
                else { throw .invalidInput("there is no device key in \(keyFile)") }
                return Render.session(session)
            }
        }
    }
}
