import FoyerAPI
import FoyerJSON
import NIOCore

/// The JSON shapes of the gateway's messages (camelCase, times RFC 3339 UTC with milliseconds, optional members
/// left out when absent).
enum GatewayJSON {
    static func session(_ session: SessionTokens) -> JSONValue {
        [
            "uid": .string(session.uid), "isAnonymous": .bool(session.isAnonymous),
            "sessionId": .string(session.sessionID), "accessToken": .string(session.accessToken),
            "accessTokenExpiresAt": .string(RFC3339.milliseconds(session.accessTokenExpiresAtMilliseconds)),
            "refreshToken": .string(session.refreshToken),
            "refreshTokenExpiresAt": .string(RFC3339.milliseconds(session.refreshTokenExpiresAtMilliseconds)),
        ]
    }

    static func linkResult(_ result: LinkResult) -> JSONValue {
        let outcome: String =
            switch result.outcome {
            case .linked: "linked"
            case .merged: "merged"
            case .discarded: "discarded"
            case .conflict: "conflict"
            }
        var members: [String: JSONValue] = ["outcome": .string(outcome)]
        if let session = result.session { members["session"] = Self.session(session) }
        if let report = result.mergeReport { members["mergeReport"] = mergeReport(report) }
        if let conflict = result.conflict {
            members["conflict"] = [
                "otherUid": .string(conflict.otherUID), "ticket": .string(conflict.ticket),
                "ticketExpiresAt": .string(RFC3339.milliseconds(conflict.ticketExpiresAtMilliseconds)),
            ]
        }
        return .object(members)
    }

    static func mergeReport(_ report: MergeReport) -> JSONValue {
        let conflicts: [JSONValue] = report.listedConflicts.map { conflict in
            let resolution: String =
                switch conflict.resolution {
                case .keptAccount: "kept-account"
                case .keptGuest: "kept-guest"
                case .keptBoth: "kept-both"
                }
            return JSONValue.object([
                "collection": .string(conflict.collection), "key": .string(conflict.key),
                "resolution": .string(resolution), "derivedKey": JSONValue(conflict.derivedKey),
            ]).compacted
        }
        return [
            "moved": JSONValue(report.moved), "conflicts": JSONValue(report.conflicts),
            "keptAccount": JSONValue(report.keptAccount), "keptGuest": JSONValue(report.keptGuest),
            "keptBoth": JSONValue(report.keptBoth), "listedConflicts": .array(conflicts),
        ]
    }

    static func user(_ user: UserInfo) -> JSONValue {
        let providers: [JSONValue] = user.providers.map { identity in
            JSONValue.object([
                "provider": .string(identity.provider.description), "subject": .string(identity.subject),
                "email": JSONValue(identity.email), "emailTrusted": .bool(identity.emailTrusted),
            ]).compacted
        }
        return JSONValue.object([
            "uid": .string(user.uid), "isAnonymous": .bool(user.isAnonymous),
            "state": .string(user.state.kind.description),
            "createdAt": .string(RFC3339.milliseconds(user.createdAtMilliseconds)),
            "lastActivityAt": .string(RFC3339.milliseconds(user.lastActivityAtMilliseconds)),
            "email": JSONValue(user.email), "emailVerified": .bool(user.emailVerified),
            "hasPassword": .bool(user.hasPassword), "providers": .array(providers),
        ]).compacted
    }

    static func usage(_ usage: QuotaUsageResponse) -> JSONValue {
        [
            "plan": .string(usage.plan),
            "counters": .array(usage.counters.map(counter)),
            "features": .array(
                usage.features.map { ["feature": .string($0.feature), "enabled": .bool($0.enabled)] }
            ),
        ]
    }

    /// One counter: `counter`, `limit`, `used`, `remaining` (the members a `quota-exceeded` problem carries too).
    static func counter(_ counter: CounterUsage) -> JSONValue {
        [
            "counter": .string(counter.counter), "limit": JSONValue(counter.limit),
            "used": JSONValue(counter.used), "remaining": JSONValue(counter.remaining),
        ]
    }

    /// A document: its value as JSON when the stored bytes are UTF-8 JSON, else as base64url.
    static func document(_ document: StoredDocument) -> JSONValue {
        var members: [String: JSONValue] = [
            "collection": .string(document.collection), "key": .string(document.key),
            "version": JSONValue(document.version),
            "updatedAt": .string(RFC3339.microseconds(document.updatedAtMicroseconds)),
        ]
        let bytes = document.value.readableBytesView
        if let value = JSONValue.parse(bytes) {
            members["value"] = value
        } else {
            members["valueBase64"] = .string(Base64URL.encode(bytes))
        }
        return .object(members)
    }

    static func page(_ page: DocumentPage) -> JSONValue {
        JSONValue.object([
            "documents": .array(page.documents.map(document)),
            "nextCursor": JSONValue(page.nextCursor.map { Base64URL.encode($0.readableBytesView) }),
        ]).compacted
    }
}

extension GatewayJSON {
    /// A `Credential` object (`type` password, emailLink, emailCode, deviceKey or idToken).
    static func credential(_ value: JSONValue?) throws(HTTPProblem) -> Credential {
        guard case .object(let object)? = value else { throw .invalidArgument("\"credential\" must be an object") }
        let type = try HTTPCall.optionalString("type", in: object)
        let members: Set<String> =
            switch type {
            case "password": ["type", "email", "password"]
            case "emailLink": ["type", "token", "verifier"]
            case "emailCode": ["type", "email", "code"]
            case "deviceKey": ["type", "keyId", "challenge", "signature"]
            case "idToken": ["type", "provider", "idToken", "rawNonce", "authorizationCode"]
            default: Set(object.keys)  // the type's own error below
            }
        try HTTPCall.onlyMembers(members, of: object, at: "credential")
        switch type {
        case "password":
            return .password(email: try required("email", object), password: try required("password", object))
        case "emailLink":
            return .emailLink(token: try required("token", object), verifier: try verifier(object))
        case "emailCode":
            let code = try required("code", object)
            guard EmailCode.isWellFormed(code) else {
                throw .invalidArgument("credential.code must be \(EmailCode.digitCount) digits")
            }
            return .emailCode(email: try required("email", object), code: code)
        case "deviceKey":
            return .deviceKey(
                keyID: try deviceKeyBytes("keyId", object, counts: [DeviceKey.keyIDByteCount]),
                challenge: try deviceKeyBytes("challenge", object, counts: [DeviceKey.challengeByteCount]),
                signature: try deviceKeyBytes("signature", object, counts: [DeviceKey.signatureByteCount])
            )
        case "idToken":
            let provider: IdentityProvider
            switch try HTTPCall.optionalString("provider", in: object) {
            case "apple": provider = .apple
            case "google": provider = .google
            default: throw .invalidArgument("credential.provider must be apple or google")
            }
            let code = try HTTPCall.optionalString("authorizationCode", in: object)
            guard code?.isEmpty != true else {
                throw .invalidArgument("credential.authorizationCode must not be empty")
            }
            return .idToken(
                provider: provider,
                idToken: try required("idToken", object),
                rawNonce: try HTTPCall.optionalString("rawNonce", in: object),
                authorizationCode: code
            )
        default:
            throw .invalidArgument("credential.type must be password, emailLink, emailCode, deviceKey or idToken")
        }
    }

    /// The `verifier` member: an RFC 7636 `code_verifier` (``CodeVerifier``), whose ASCII bytes the binary request
    /// carries.
    static func verifier(_ object: [String: JSONValue]) throws(HTTPProblem) -> [UInt8] {
        let text = try required("verifier", object)
        let bytes = Array(text.utf8)
        guard CodeVerifier.isValid(bytes) else {
            throw .invalidArgument("\"verifier\" must be 1-128 characters of A-Z a-z 0-9 - . _ ~ (RFC 7636)")
        }
        return bytes
    }

    /// `signUpProof` of `POST /v1/guests`: absent, `{"type": "proofOfWork", "challenge", "nonce"}` (both base64url)
    /// or `{"type": "siteverify", "token"}`.
    static func signUpProof(_ value: JSONValue?) throws(HTTPProblem) -> SignUpProof? {
        guard let value else { return nil }
        guard case .object(let object) = value else { throw .invalidArgument("\"signUpProof\" must be an object") }
        switch try HTTPCall.optionalString("type", in: object) {
        case "proofOfWork":
            try HTTPCall.onlyMembers(["type", "challenge", "nonce"], of: object, at: "signUpProof")
            func bytes(_ name: String, max: Int) throws(HTTPProblem) -> [UInt8] {
                guard let bytes = Base64URL.decode(try required(name, object)), (1...max).contains(bytes.count) else {
                    throw .invalidArgument("signUpProof.\(name) must be base64url of 1-\(max) bytes")
                }
                return bytes
            }
            return .proofOfWork(
                challenge: try bytes("challenge", max: SignUpProof.challengeByteCountMax),
                nonce: try bytes("nonce", max: SignUpProof.nonceByteCountMax)
            )
        case "siteverify":
            try HTTPCall.onlyMembers(["type", "token"], of: object, at: "signUpProof")
            let token = try required("token", object)
            guard (1...SignUpProof.tokenByteCountMax).contains(token.utf8.count) else {
                throw .invalidArgument("signUpProof.token must be 1-\(SignUpProof.tokenByteCountMax) bytes")
            }
            return .siteverify(token: token)
        default:
            throw .invalidArgument("signUpProof.type must be proofOfWork or siteverify")
        }
    }

    static func required(_ name: String, _ object: [String: JSONValue]) throws(HTTPProblem) -> String {
        guard let value = try HTTPCall.optionalString(name, in: object) else {
            throw .invalidArgument("\"\(name)\" is required")
        }
        return value
    }

    static func conflictChoice(_ text: String?, default choice: ConflictChoice) throws(HTTPProblem) -> ConflictChoice {
        switch text {
        case nil: return choice
        case "merge": return .merge
        case "discard": return .discard
        case "fail": return .fail
        default: throw .invalidArgument("onConflict/choice must be merge, discard or fail")
        }
    }

    static func mergePolicy(_ text: String?) throws(HTTPProblem) -> MergePolicy {
        guard let text else { return .keepAccount }
        guard let policy = MergePolicy.allCases.first(where: { $0.description == text }) else {
            throw .invalidArgument("mergePolicy must be keep-account, keep-guest, keep-newest or keep-both")
        }
        return policy
    }

    /// A document value: `value` (any JSON, stored as its UTF-8 text) or `valueBase64`, exactly one of them.
    static func documentValue(_ object: [String: JSONValue]) throws(HTTPProblem) -> ByteBuffer {
        switch (object["value"], object["valueBase64"]) {
        case (let value?, nil):
            return ByteBuffer(bytes: value.bytes)
        case (nil, .string(let text)?):
            guard let bytes = Base64URL.decode(text) else { throw .invalidArgument("\"valueBase64\" is not base64") }
            return ByteBuffer(bytes: bytes)
        default:
            throw .invalidArgument("give exactly one of \"value\" and \"valueBase64\" (a string)")
        }
    }
}
