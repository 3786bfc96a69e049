import FoyerAPI
import FoyerJSON

extension HTTPOperations {
    /// Device keys: a challenge, and a guest registering a key (docs/openapi.yaml). Signing in with a key is
    /// `signIn` with the `deviceKey` credential.
    static let deviceKeys: [HTTPOperation] = [
        HTTPOperation(
            "createDeviceKeyChallenge",
            "POST",
            "/v1/device-keys/challenges",
            GatewayMethods.deviceKeyChallenge
        ) { call in
            let purpose: DeviceKeyPurpose
            switch try call.string("purpose") {
            case "signIn": purpose = .signIn
            case "register": purpose = .register
            default: throw HTTPProblem.invalidArgument("purpose must be signIn or register")
            }
            return CreateDeviceKeyChallengeRequest(purpose: purpose)
        } response: {
            [
                "challenge": .string(Base64URL.encode($0.challenge)), "issuer": .string($0.issuer),
                "expiresAt": .string(RFC3339.milliseconds($0.expiresAtMilliseconds)),
            ]
        },
        HTTPOperation("registerDeviceKey", "POST", "/v1/me/device-keys", GatewayMethods.registerDeviceKey) { call in
            DeviceKeyRegisterRequest(
                accessToken: try call.bearerToken(),
                publicKey: try GatewayJSON.deviceKeyBytes(
                    "publicKey",
                    call.body,
                    counts: DeviceKey.publicKeyByteCounts
                ),
                challenge: try GatewayJSON.deviceKeyBytes(
                    "challenge",
                    call.body,
                    counts: [DeviceKey.challengeByteCount]
                ),
                signature: try GatewayJSON.deviceKeyBytes(
                    "signature",
                    call.body,
                    counts: [DeviceKey.signatureByteCount]
                )
            )
        } response: {
            ["keyId": .string(Base64URL.encode($0.keyID))]
        },
    ]
}

extension GatewayJSON {
    /// A base64url member that must decode to one of `counts` bytes (a device key's id, challenge, signature or
    /// public key).
    static func deviceKeyBytes(
        _ name: String,
        _ object: [String: JSONValue],
        counts: Set<Int>
    ) throws(HTTPProblem) -> [UInt8] {
        let sizes = counts.sorted().map { String($0) }.joined(separator: ", ")
        guard let bytes = Base64URL.decode(try required(name, object)), counts.contains(bytes.count) else {
            throw .invalidArgument("\"\(name)\" must be base64url of \(sizes) bytes")
        }
        return bytes
    }
}
