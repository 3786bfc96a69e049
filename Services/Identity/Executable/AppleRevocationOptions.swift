import ArgumentParser
import Foundation
import FoyerIdentity
import FoyerServiceKit

/// Sign in with Apple's client-secret settings, with which identity exchanges the authorization codes apps send
/// at sign-in and link for refresh tokens, and revokes those when the account is deleted. All three of team id,
/// key id and key file, or none (codes are then ignored). A flag wins over its environment variable.
struct AppleRevocationOptions: ParsableArguments {
    @Option(help: "Sign in with Apple: the developer team id, the client secret's iss. (env: FOYER_APPLE_TEAM_ID)")
    var appleTeamID: String?

    @Option(
        help: "Sign in with Apple: the id of the Sign in with Apple key (the .p8 file's). (env: FOYER_APPLE_KEY_ID)"
    )
    var appleKeyID: String?

    @Option(
        help: """
            Sign in with Apple: the key's .p8 file (a P-256 private key in PKCS#8 PEM) that signs the client \
            secrets; needs --signing-key-encryption-key-file, which seals the refresh tokens. (env: FOYER_APPLE_KEY_FILE)
            """
    )
    var appleKeyFile: String?

    @Option(
        help: """
            Sign in with Apple: where /auth/token and /auth/revoke are; http only with \
            --allow-test-identity-providers. (env: FOYER_APPLE_ENDPOINT; default: https://appleid.apple.com)
            """
    )
    var appleEndpoint: String?

    /// Sets `configuration.appleRevocation` when the settings are given; refuses some without the others.
    func apply(to configuration: inout IdentityConfiguration) throws {
        let settings = SettingsReader()
        let teamID = try settings.value(appleTeamID, .text("--apple-team-id", "FOYER_APPLE_TEAM_ID"))
        let keyID = try settings.value(appleKeyID, .text("--apple-key-id", "FOYER_APPLE_KEY_ID"))
        let keyFile = try settings.value(appleKeyFile, .text("--apple-key-file", "FOYER_APPLE_KEY_FILE"))
        let endpoint = try settings.value(appleEndpoint, .text("--apple-endpoint", "FOYER_APPLE_ENDPOINT"))
        guard let teamID, let keyID, let keyFile else {
            guard teamID == nil, keyID == nil, keyFile == nil, endpoint == nil else {
                throw ValidationError("--apple-team-id, --apple-key-id and --apple-key-file go together")
            }
            return
        }
        var revocation = AppleRevocationSettings(teamID: teamID, keyID: keyID, keyFile: keyFile)
        revocation.endpoint = endpoint ?? revocation.endpoint
        configuration.appleRevocation = revocation
    }
}
