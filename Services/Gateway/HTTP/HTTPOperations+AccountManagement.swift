import FoyerAPI
import FoyerJSON

extension HTTPOperations {
    /// Password reset and change, sign-out everywhere, removing a credential, changing the email address
    /// (docs/openapi.yaml).
    static let accountManagement: [HTTPOperation] = [
        HTTPOperation(
            "startPasswordReset",
            "POST",
            "/v1/password-resets",
            GatewayMethods.startPasswordReset,
            status: 202
        ) { call in
            PasswordResetStartRequest(
                email: try call.string("email"),
                verifierChallenge: try optionalChallenge(call)
            )
        } response: { _ in
            [:]
        },
        HTTPOperation(
            "completePasswordReset",
            "POST",
            "/v1/password-resets/complete",
            GatewayMethods.completePasswordReset
        ) { call in
            PasswordResetCompleteRequest(
                token: try call.string("token"),
                verifier: call.body["verifier"] == nil ? nil : try GatewayJSON.verifier(call.body),
                newPassword: try call.string("newPassword")
            )
        } response: {
            GatewayJSON.session($0)
        },
        HTTPOperation("changePassword", "POST", "/v1/me/password", GatewayMethods.changePassword) { call in
            PasswordChangeRequest(
                accessToken: try call.bearerToken(),
                currentPassword: try call.optionalString("currentPassword"),
                newPassword: try call.string("newPassword")
            )
        } response: {
            GatewayJSON.session($0)
        },
        HTTPOperation(
            "signOutEverywhere",
            "POST",
            "/v1/sessions/sign-out-everywhere",
            GatewayMethods.signOutEverywhere
        ) { call in
            AuthenticatedRequest(accessToken: try call.bearerToken())
        } response: { _ in
            [:]
        },
        HTTPOperation(
            "unlinkCredential",
            "DELETE",
            "/v1/me/credentials/{credential}",
            GatewayMethods.unlinkCredential
        ) { call in
            guard let credential = CredentialKind(name: call.path("credential")) else {
                throw HTTPProblem.invalidArgument("the credential must be email, apple or google")
            }
            return UnlinkRequest(accessToken: try call.bearerToken(), credential: credential)
        } response: { _ in
            [:]
        },
        HTTPOperation("startEmailChange", "POST", "/v1/me/email", GatewayMethods.startEmailChange, status: 202) {
            call in
            EmailChangeStartRequest(
                accessToken: try call.bearerToken(),
                currentPassword: try call.optionalString("currentPassword"),
                newEmail: try call.string("newEmail"),
                verifierChallenge: try optionalChallenge(call)
            )
        } response: { _ in
            [:]
        },
        HTTPOperation(
            "completeEmailChange",
            "POST",
            "/v1/email-changes/complete",
            GatewayMethods.completeEmailChange
        ) { call in
            CompleteEmailChangeRequest(
                token: try call.string("token"),
                verifier: call.body["verifier"] == nil ? nil : try GatewayJSON.verifier(call.body)
            )
        } response: { _ in
            [:]
        },
    ]

    /// The optional `verifierChallenge` member: base64url of 32 bytes.
    private static func optionalChallenge(_ call: HTTPCall) throws(HTTPProblem) -> [UInt8]? {
        guard let text = try call.optionalString("verifierChallenge") else { return nil }
        guard let challenge = Base64URL.decode(text), challenge.count == 32 else {
            throw .invalidArgument("\"verifierChallenge\" must be base64url of 32 bytes")
        }
        return challenge
    }
}
