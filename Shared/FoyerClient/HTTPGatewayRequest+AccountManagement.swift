import FoyerAPI
import FoyerBase64URL
import FoyerJSON
import FoyerWire

extension HTTPGatewayRequest {
    /// The account-management methods, which `init(accountManagement:_:)` routes.
    static let accountManagementMethods: Set<UInt16> = [
        GatewayMethods.startPasswordReset.id, GatewayMethods.completePasswordReset.id,
        GatewayMethods.changePassword.id, GatewayMethods.signOutEverywhere.id, GatewayMethods.unlinkCredential.id,
        GatewayMethods.startEmailChange.id, GatewayMethods.completeEmailChange.id,
        GatewayMethods.deviceKeyChallenge.id, GatewayMethods.registerDeviceKey.id,
    ]

    /// Password reset and change, sign-out everywhere, removing a credential, changing the email address, device
    /// keys.
    init(accountManagement methodID: UInt16, _ request: any WireMessage) throws(FoyerError) {
        var token: String?
        var body: [String: JSONValue] = [:]
        switch (methodID, request) {
        case (GatewayMethods.startPasswordReset.id, let request as PasswordResetStartRequest):
            (verb, path) = ("POST", "/v1/password-resets")
            body["email"] = .string(request.email)
            if let challenge = request.verifierChallenge {
                body["verifierChallenge"] = .string(Base64URL.encode(challenge))
            }
        case (GatewayMethods.completePasswordReset.id, let request as PasswordResetCompleteRequest):
            (verb, path) = ("POST", "/v1/password-resets/complete")
            body["token"] = .string(request.token)
            body["newPassword"] = .string(request.newPassword)
            if let verifier = request.verifier { body["verifier"] = .string(EmailLinkVerifier.text(of: verifier)) }
        case (GatewayMethods.changePassword.id, let request as PasswordChangeRequest):
            (verb, path, token) = ("POST", "/v1/me/password", request.accessToken)
            body["newPassword"] = .string(request.newPassword)
            if let current = request.currentPassword { body["currentPassword"] = .string(current) }
        case (GatewayMethods.signOutEverywhere.id, let request as AuthenticatedRequest):
            (verb, path, token) = ("POST", "/v1/sessions/sign-out-everywhere", request.accessToken)
        case (GatewayMethods.unlinkCredential.id, let request as UnlinkRequest):
            (verb, path, token) = ("DELETE", "/v1/me/credentials/\(request.credential)", request.accessToken)
        case (GatewayMethods.startEmailChange.id, let request as EmailChangeStartRequest):
            (verb, path, token) = ("POST", "/v1/me/email", request.accessToken)
            body["newEmail"] = .string(request.newEmail)
            if let current = request.currentPassword { body["currentPassword"] = .string(current) }
            if let challenge = request.verifierChallenge {
                body["verifierChallenge"] = .string(Base64URL.encode(challenge))
            }
        case (GatewayMethods.completeEmailChange.id, let request as CompleteEmailChangeRequest):
            (verb, path) = ("POST", "/v1/email-changes/complete")
            body["token"] = .string(request.token)
            if let verifier = request.verifier { body["verifier"] = .string(EmailLinkVerifier.text(of: verifier)) }
        case (GatewayMethods.deviceKeyChallenge.id, let request as CreateDeviceKeyChallengeRequest):
            (verb, path) = ("POST", "/v1/device-keys/challenges")
            body["purpose"] = .string(request.purpose == .signIn ? "signIn" : "register")
        case (GatewayMethods.registerDeviceKey.id, let request as DeviceKeyRegisterRequest):
            (verb, path, token) = ("POST", "/v1/me/device-keys", request.accessToken)
            body["publicKey"] = .string(Base64URL.encode(request.publicKey))
            body["challenge"] = .string(Base64URL.encode(request.challenge))
            body["signature"] = .string(Base64URL.encode(request.signature))
        default:
            throw FoyerError(
                status: .unimplemented,
                message: "method 0x\(String(methodID, radix: 16)) has no HTTP route"
            )
        }
        bearerToken = token
        idempotencyKey = nil
        self.body = body.isEmpty ? nil : .object(body)
        forwardedFor = nil
    }
}
