import Foundation
import FoyerAPI
import FoyerBase64URL
import FoyerJSON
import FoyerWire
import NIOCore

/// One call as the gateway's HTTP edge takes it (docs/openapi.yaml): the route, the bearer token, the
/// `Idempotency-Key` the binary request carries as its idempotency key or operation id, and the JSON body.
struct HTTPGatewayRequest: Sendable, Equatable {
    var verb: String
    /// The path with its parameters percent-encoded, and the query if any.
    var path: String
    var bearerToken: String?
    var idempotencyKey: String?
    var body: JSONValue?
    /// `X-Forwarded-For`: the load-test source of a guest sign-in (honoured only by a gateway that trusts this
    /// client as a proxy, `--trusted-proxies`).
    var forwardedFor: String?

    /// The HTTP form of a gateway method's request; `unimplemented` for a method the HTTP edge does not offer.
    init(_ methodID: UInt16, _ request: any WireMessage) throws(FoyerError) {
        switch (methodID, request) {
        case (GatewayMethods.guestSignIn.id, let request as GuestSignInRequest):
            self.init("POST", "/v1/guests", idempotencyKey: request.idempotencyKey)
            forwardedFor = request.loadTestSource
        case (GatewayMethods.guestSignInWithCheck.id, let request as CheckedGuestSignInRequest):
            let body: JSONValue? = request.proof.map { ["signUpProof": Self.signUpProof($0)] }
            self.init("POST", "/v1/guests", idempotencyKey: request.idempotencyKey, body: body)
            forwardedFor = request.loadTestSource
        case (GatewayMethods.signUpChallenge.id, _ as Empty):
            self.init("POST", "/v1/sign-up-challenges")
        case (GatewayMethods.signIn.id, let request as SignInRequest):
            self.init("POST", "/v1/sessions", body: ["credential": Self.credential(request.credential)])
        case (GatewayMethods.refresh.id, let request as RefreshSessionRequest):
            self.init("POST", "/v1/sessions/refresh", body: ["refreshToken": .string(request.refreshToken)])
        case (GatewayMethods.signOut.id, let request as OperationRequest):
            self.init("POST", "/v1/sessions/sign-out", token: request.accessToken, idempotencyKey: request.operationID)
        case (GatewayMethods.startEmailLink.id, let request as EmailLinkStartRequest):
            let body: JSONValue = [
                "purpose": request.purpose == .link ? "link" : "sign-in", "email": .string(request.email),
                "verifierChallenge": .string(Base64URL.encode(request.verifierChallenge)),
            ]
            self.init("POST", "/v1/email-links", token: request.accessToken, body: body)
        case (GatewayMethods.me.id, let request as AuthenticatedRequest):
            self.init("GET", "/v1/me", token: request.accessToken)
        case (GatewayMethods.quota.id, let request as AuthenticatedRequest):
            self.init("GET", "/v1/me/quota", token: request.accessToken)
        case (GatewayMethods.checkFeature.id, let request as GatewayFeatureRequest):
            self.init("GET", "/v1/me/features/\(Self.segment(request.feature))", token: request.accessToken)
        case (GatewayMethods.consumeCounter.id, let request as GatewayCounterRequest),
            (GatewayMethods.releaseCounter.id, let request as GatewayCounterRequest):
            let action = methodID == GatewayMethods.consumeCounter.id ? "consume" : "release"
            self.init(
                "POST",
                "/v1/me/quota/\(Self.segment(request.counter))/\(action)",
                token: request.accessToken,
                idempotencyKey: request.idempotencyKey,
                body: ["amount": JSONValue(request.amount)]
            )
        case (GatewayMethods.link.id, let request as LinkRequest):
            let body: JSONValue = [
                "credential": Self.credential(request.credential), "onConflict": Self.choice(request.onConflict),
                "mergePolicy": .string(request.mergePolicy.description),
            ]
            self.init(
                "POST",
                "/v1/me/credentials",
                token: request.accessToken,
                idempotencyKey: request.operationID,
                body: body
            )
        case (GatewayMethods.resolveConflict.id, let request as ResolveConflictRequest):
            let body: JSONValue = [
                "ticket": .string(request.ticket), "choice": Self.choice(request.choice),
                "mergePolicy": .string(request.mergePolicy.description),
            ]
            self.init(
                "POST",
                "/v1/me/conflicts",
                token: request.accessToken,
                idempotencyKey: request.operationID,
                body: body
            )
        case (GatewayMethods.deleteAccount.id, let request as OperationRequest):
            self.init("DELETE", "/v1/me", token: request.accessToken, idempotencyKey: request.operationID)
        default:
            try self.init(documentMethod: methodID, request)
        }
    }

    /// The document operations and the JWKS.
    private init(documentMethod methodID: UInt16, _ request: any WireMessage) throws(FoyerError) {
        switch (methodID, request) {
        case (GatewayMethods.putDocument.id, let request as GatewayPutRequest):
            var body: [String: JSONValue] = ["valueBase64": .string(Base64URL.encode(request.value.readableBytesView))]
            if let version = request.expectedVersion { body["expectedVersion"] = JSONValue(version) }
            self.init(
                "PUT",
                Self.documentPath(request.collection, request.key),
                token: request.accessToken,
                idempotencyKey: request.idempotencyKey,
                body: .object(body)
            )
        case (GatewayMethods.getDocument.id, let request as GatewayDocumentRequest):
            self.init("GET", Self.documentPath(request.collection, request.key), token: request.accessToken)
        case (GatewayMethods.deleteDocument.id, let request as GatewayDocumentRequest):
            self.init("DELETE", Self.documentPath(request.collection, request.key), token: request.accessToken)
        case (GatewayMethods.listDocuments.id, let request as GatewayListRequest):
            let path = "/v1/documents/\(Self.segment(request.collection))"
            self.init("GET", Self.paged(path, request.cursor, request.pageSize), token: request.accessToken)
        case (GatewayMethods.exportDocuments.id, let request as GatewayExportRequest):
            self.init("GET", Self.paged("/v1/me/export", request.cursor, request.pageSize), token: request.accessToken)
        case (GatewayMethods.importDocuments.id, let request as GatewayImportRequest):
            let documents: [JSONValue] = request.documents.map { entry in
                [
                    "collection": .string(request.collection), "key": .string(entry.key),
                    "valueBase64": .string(Base64URL.encode(entry.value.readableBytesView)),
                ]
            }
            self.init(
                "POST",
                "/v1/documents/import",
                token: request.accessToken,
                idempotencyKey: request.idempotencyKey,
                body: ["documents": .array(documents)]
            )
        case (GatewayMethods.jwks.id, _):
            self.init("GET", "/.well-known/jwks.json")
        case let (methodID, request) where Self.accountManagementMethods.contains(methodID):
            try self.init(accountManagement: methodID, request)
        default:
            throw FoyerError(
                status: .unimplemented,
                message: "method 0x\(String(methodID, radix: 16)) has no HTTP route"
            )
        }
    }

    private init(
        _ verb: String,
        _ path: String,
        token: String? = nil,
        idempotencyKey: String? = nil,
        body: JSONValue? = nil
    ) {
        self.verb = verb
        self.path = path
        self.bearerToken = token
        self.idempotencyKey = idempotencyKey
        self.body = body
    }

    /// The `signUpProof` object of `POST /v1/guests`.
    static func signUpProof(_ proof: SignUpProof) -> JSONValue {
        switch proof {
        case .proofOfWork(let challenge, let nonce):
            return [
                "type": "proofOfWork", "challenge": .string(Base64URL.encode(challenge)),
                "nonce": .string(Base64URL.encode(nonce)),
            ]
        case .siteverify(let token):
            return ["type": "siteverify", "token": .string(token)]
        }
    }

    /// The `Credential` object of the HTTP API.
    static func credential(_ credential: Credential) -> JSONValue {
        switch credential {
        case .password(let email, let password):
            return ["type": "password", "email": .string(email), "password": .string(password)]
        case .emailLink(let token, let verifier):
            return [
                "type": "emailLink", "token": .string(token), "verifier": .string(EmailLinkVerifier.text(of: verifier)),
            ]
        case .emailCode(let email, let code):
            return ["type": "emailCode", "email": .string(email), "code": .string(code)]
        case .deviceKey(let keyID, let challenge, let signature):
            return [
                "type": "deviceKey", "keyId": .string(Base64URL.encode(keyID)),
                "challenge": .string(Base64URL.encode(challenge)), "signature": .string(Base64URL.encode(signature)),
            ]
        case .idToken(let provider, let idToken, let rawNonce, let code):
            return JSONValue.object([
                "type": "idToken", "provider": .string(provider.description), "idToken": .string(idToken),
                "rawNonce": JSONValue(rawNonce), "authorizationCode": JSONValue(code),
            ]).compacted
        }
    }

    private static func choice(_ choice: ConflictChoice) -> JSONValue {
        switch choice {
        case .merge: "merge"
        case .discard: "discard"
        case .fail: "fail"
        }
    }

    private static func documentPath(_ collection: String, _ key: String) -> String {
        "/v1/documents/\(segment(collection))/\(segment(key))"
    }

    private static func paged(_ path: String, _ cursor: ByteBuffer?, _ pageSize: UInt64) -> String {
        var query = "\(path)?pageSize=\(pageSize)"
        if let cursor { query += "&cursor=\(Base64URL.encode(cursor.readableBytesView))" }
        return query
    }

    /// One path segment, every byte but letters, digits, `-`, `_` and `~` percent-encoded (a key may hold `/`, `?`,
    /// spaces, or be `..`, which clients would otherwise resolve away).
    static func segment(_ text: String) -> String {
        var encoded = ""
        for byte in text.utf8 {
            if (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
                || [0x2D, 0x5F, 0x7E].contains(byte)
            {
                encoded.unicodeScalars.append(Unicode.Scalar(byte))
            } else {
                encoded += "%" + (byte < 16 ? "0" : "") + String(byte, radix: 16, uppercase: true)
            }
        }
        return encoded
    }
}
