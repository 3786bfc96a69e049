import FoyerAPI
import FoyerJSON
import FoyerWire
import NIOCore

/// The HTTP API's operation table: one row per operation, each a thin adapter over the gateway method of the
/// same name (docs/openapi.yaml documents the same rows).
enum HTTPOperations {
    static let all: [HTTPOperation] = sessions + accounts + documents + accountManagement + deviceKeys

    static let sessions: [HTTPOperation] = [
        // Without a proof the released clients' method; with one, the method that carries it.
        HTTPOperation(
            "guestSignIn",
            "POST",
            "/v1/guests",
            methods: [GatewayMethods.guestSignIn.id, GatewayMethods.guestSignInWithCheck.id],
            status: 201
        ) { call, dispatcher in
            let key = try call.idempotencyKey(required: true)
            guard let proof = try GatewayJSON.signUpProof(call.body["signUpProof"]) else {
                return GatewayJSON.session(
                    try await dispatcher.call(GatewayMethods.guestSignIn, GuestSignInRequest(idempotencyKey: key))
                )
            }
            return GatewayJSON.session(
                try await dispatcher.call(
                    GatewayMethods.guestSignInWithCheck,
                    CheckedGuestSignInRequest(idempotencyKey: key, proof: proof)
                )
            )
        },
        HTTPOperation("createSignUpChallenge", "POST", "/v1/sign-up-challenges", GatewayMethods.signUpChallenge) {
            _ in
            Empty()
        } response: {
            [
                "challenge": .string(Base64URL.encode($0.challenge)), "difficulty": JSONValue(UInt64($0.difficulty)),
                "expiresAt": .string(RFC3339.milliseconds($0.expiresAtMilliseconds)),
            ]
        },
        HTTPOperation("signIn", "POST", "/v1/sessions", GatewayMethods.signIn) { call in
            SignInRequest(credential: try GatewayJSON.credential(call.body["credential"]))
        } response: {
            GatewayJSON.session($0)
        },
        HTTPOperation("refreshSession", "POST", "/v1/sessions/refresh", GatewayMethods.refresh) { call in
            RefreshSessionRequest(refreshToken: try call.string("refreshToken"))
        } response: {
            GatewayJSON.session($0)
        },
        HTTPOperation("signOut", "POST", "/v1/sessions/sign-out", GatewayMethods.signOut) { call in
            OperationRequest(accessToken: try call.bearerToken(), operationID: try call.idempotencyKey(required: false))
        } response: {
            ["accountDeleted": .bool($0.accountDeleted)]
        },
        HTTPOperation("startEmailLink", "POST", "/v1/email-links", GatewayMethods.startEmailLink, status: 202) {
            call in
            let purpose = try emailLinkPurpose(call)
            guard let challenge = Base64URL.decode(try call.string("verifierChallenge")), challenge.count == 32 else {
                throw HTTPProblem.invalidArgument("\"verifierChallenge\" must be base64url of 32 bytes")
            }
            return EmailLinkStartRequest(
                purpose: purpose,
                email: try call.string("email"),
                accessToken: purpose == .link ? try call.bearerToken() : call.optionalBearerToken(),
                verifierChallenge: challenge
            )
        } response: { _ in
            [:]
        },
        HTTPOperation(
            "completeEmailLink",
            "POST",
            "/v1/email-links/complete",
            methods: [GatewayMethods.signIn.id, GatewayMethods.link.id],
            run: completeEmailLink
        ),
    ]

    static let accounts: [HTTPOperation] = [
        HTTPOperation("getMe", "GET", "/v1/me", GatewayMethods.me) { call in
            AuthenticatedRequest(accessToken: try call.bearerToken())
        } response: {
            ["user": GatewayJSON.user($0.user), "usage": GatewayJSON.usage($0.usage)]
        },
        HTTPOperation("getQuota", "GET", "/v1/me/quota", GatewayMethods.quota) { call in
            AuthenticatedRequest(accessToken: try call.bearerToken())
        } response: {
            GatewayJSON.usage($0)
        },
        HTTPOperation("checkFeature", "GET", "/v1/me/features/{feature}", GatewayMethods.checkFeature) { call in
            GatewayFeatureRequest(accessToken: try call.bearerToken(), feature: call.path("feature"))
        } response: {
            ["plan": .string($0.plan), "enabled": .bool($0.enabled)]
        },
        HTTPOperation("consumeCounter", "POST", "/v1/me/quota/{counter}/consume", GatewayMethods.consumeCounter) {
            call in
            try counterRequest(call)
        } response: {
            GatewayJSON.counter($0)
        },
        HTTPOperation("releaseCounter", "POST", "/v1/me/quota/{counter}/release", GatewayMethods.releaseCounter) {
            call in
            try counterRequest(call)
        } response: {
            GatewayJSON.counter($0)
        },
        HTTPOperation("linkCredential", "POST", "/v1/me/credentials", GatewayMethods.link) { call in
            LinkRequest(
                accessToken: try call.bearerToken(),
                credential: try GatewayJSON.credential(call.body["credential"]),
                onConflict: try GatewayJSON.conflictChoice(try call.optionalString("onConflict"), default: .fail),
                mergePolicy: try GatewayJSON.mergePolicy(try call.optionalString("mergePolicy")),
                operationID: try call.idempotencyKey(required: false)
            )
        } response: {
            GatewayJSON.linkResult($0)
        },
        HTTPOperation("resolveConflict", "POST", "/v1/me/conflicts", GatewayMethods.resolveConflict) { call in
            let choice = try GatewayJSON.conflictChoice(try call.string("choice"), default: .merge)
            guard choice != .fail else { throw HTTPProblem.invalidArgument("choice must be merge or discard") }
            return ResolveConflictRequest(
                accessToken: try call.bearerToken(),
                ticket: try call.string("ticket"),
                choice: choice,
                mergePolicy: try GatewayJSON.mergePolicy(try call.optionalString("mergePolicy")),
                operationID: try call.idempotencyKey(required: false)
            )
        } response: {
            GatewayJSON.linkResult($0)
        },
        HTTPOperation("deleteAccount", "DELETE", "/v1/me", GatewayMethods.deleteAccount) { call in
            OperationRequest(accessToken: try call.bearerToken(), operationID: try call.idempotencyKey(required: false))
        } response: {
            ["documentsDeleted": JSONValue($0.documentsDeleted)]
        },
    ]

    static let documents: [HTTPOperation] = [
        HTTPOperation("putDocument", "PUT", "/v1/documents/{collection}/{key}", GatewayMethods.putDocument) { call in
            GatewayPutRequest(
                accessToken: try call.bearerToken(),
                collection: call.path("collection"),
                key: call.path("key"),
                value: try GatewayJSON.documentValue(call.body),
                expectedVersion: try call.optionalCount("expectedVersion"),
                idempotencyKey: try call.idempotencyKey(required: true)
            )
        } response: {
            ["version": JSONValue($0.version), "updatedAt": .string(RFC3339.microseconds($0.updatedAtMicroseconds))]
        },
        HTTPOperation("getDocument", "GET", "/v1/documents/{collection}/{key}", GatewayMethods.getDocument) { call in
            GatewayDocumentRequest(
                accessToken: try call.bearerToken(),
                collection: call.path("collection"),
                key: call.path("key")
            )
        } response: { answer in
            guard let document = answer.document else { throw HTTPProblem.notFound("no such document") }
            return GatewayJSON.document(document)
        },
        HTTPOperation("listDocuments", "GET", "/v1/documents/{collection}", GatewayMethods.listDocuments) { call in
            GatewayListRequest(
                accessToken: try call.bearerToken(),
                collection: call.path("collection"),
                cursor: try call.queryCursor(),
                pageSize: try pageSize(call)
            )
        } response: {
            GatewayJSON.page($0)
        },
        HTTPOperation("deleteDocument", "DELETE", "/v1/documents/{collection}/{key}", GatewayMethods.deleteDocument) {
            call in
            GatewayDocumentRequest(
                accessToken: try call.bearerToken(),
                collection: call.path("collection"),
                key: call.path("key")
            )
        } response: {
            ["deleted": .bool($0.deleted)]
        },
        HTTPOperation("exportData", "GET", "/v1/me/export", GatewayMethods.exportDocuments) { call in
            GatewayExportRequest(
                accessToken: try call.bearerToken(),
                cursor: try call.queryCursor(),
                pageSize: try pageSize(call)
            )
        } response: {
            GatewayJSON.page($0)
        },
        HTTPOperation("importDocuments", "POST", "/v1/documents/import", GatewayMethods.importDocuments) { call in
            try importRequest(call)
        } response: {
            ["written": JSONValue($0.written)]
        },
    ]

    private static func pageSize(_ call: HTTPCall) throws(HTTPProblem) -> UInt64 {
        try call.queryNumber("pageSize", default: 100, range: 1...UInt64(UserDataLimits.pageSizeLimit))
    }

    /// `consumeCounter` and `releaseCounter`: the counter from the path, `amount` (default 1) from the body, and the
    /// `Idempotency-Key` the call needs (a retried consume must not count twice).
    private static func counterRequest(_ call: HTTPCall) throws(HTTPProblem) -> GatewayCounterRequest {
        let range = 1...UInt64(GuestQuotaLimits.consumeAmountMax)
        let amount: UInt64
        switch call.body["amount"] {
        case nil: amount = 1
        case .int(let value)? where value >= 1 && range.contains(UInt64(value)): amount = UInt64(value)
        case .uint(let value)? where range.contains(value): amount = value
        default: throw .invalidArgument("\"amount\" must be an integer from 1 to 2^40")
        }
        return GatewayCounterRequest(
            accessToken: try call.bearerToken(),
            counter: call.path("counter"),
            amount: amount,
            idempotencyKey: try call.idempotencyKey(required: true)
        )
    }

    private static func emailLinkPurpose(_ call: HTTPCall) throws(HTTPProblem) -> EmailLinkPurpose {
        switch try call.string("purpose") {
        case "sign-in": return .signIn
        case "link": return .link
        default: throw .invalidArgument("purpose must be sign-in or link")
        }
    }

    /// `completeEmailLink`: a sign-in with the link's credential (answered as outcome `linked` with the account's
    /// session), or a link of it to the caller.
    private static func completeEmailLink(_ call: HTTPCall, _ dispatcher: GatewayDispatcher) async throws -> JSONValue {
        let credential = Credential.emailLink(
            token: try call.string("token"),
            verifier: try GatewayJSON.verifier(call.body)
        )
        switch try emailLinkPurpose(call) {
        case .signIn:
            let session = try await dispatcher.call(GatewayMethods.signIn, SignInRequest(credential: credential))
            return GatewayJSON.linkResult(.linked(session))
        case .link:
            let request = LinkRequest(
                accessToken: try call.bearerToken(),
                credential: credential,
                onConflict: try GatewayJSON.conflictChoice(try call.optionalString("onConflict"), default: .fail),
                mergePolicy: try GatewayJSON.mergePolicy(try call.optionalString("mergePolicy")),
                operationID: try call.idempotencyKey(required: false)
            )
            return GatewayJSON.linkResult(try await dispatcher.call(GatewayMethods.link, request))
        }
    }

    /// `importDocuments`: the binary request takes one collection, so every document must name the same one.
    private static func importRequest(_ call: HTTPCall) throws(HTTPProblem) -> GatewayImportRequest {
        guard case .array(let items)? = call.body["documents"], !items.isEmpty,
            items.count <= GatewayLimits.importCountMax
        else { throw .invalidArgument("\"documents\" must be an array of 1-\(GatewayLimits.importCountMax) documents") }
        var collection: String?
        var entries: [GatewayImportRequest.Entry] = []
        for item in items {
            guard case .object(let object) = item else { throw .invalidArgument("each document must be an object") }
            try HTTPCall.onlyMembers(["collection", "key", "value", "valueBase64"], of: object, at: "documents[]")
            let itemCollection = try GatewayJSON.required("collection", object)
            guard collection == nil || collection == itemCollection else {
                throw .invalidArgument("the documents of one import must share one collection")
            }
            collection = itemCollection
            entries.append(
                GatewayImportRequest.Entry(
                    key: try GatewayJSON.required("key", object),
                    value: try GatewayJSON.documentValue(object)
                )
            )
        }
        return GatewayImportRequest(
            accessToken: try call.bearerToken(),
            collection: collection ?? "",
            documents: entries,
            idempotencyKey: try call.idempotencyKey(required: true)
        )
    }
}

extension HTTPOperations {
    /// The members each operation's JSON body may have, as docs/openapi.yaml's request schemas say
    /// (`additionalProperties: false`); any other is refused with 400 naming it, so that a misspelt optional member
    /// (`onConflit`) is not silently dropped. An operation not listed takes no body members (an empty body or `{}`).
    static let bodyMembers: [String: Set<String>] = [
        "guestSignIn": ["signUpProof"],
        "signIn": ["credential"],
        "refreshSession": ["refreshToken"],
        "startEmailLink": ["email", "purpose", "verifierChallenge"],
        "completeEmailLink": ["mergePolicy", "onConflict", "purpose", "token", "verifier"],
        "consumeCounter": ["amount"],
        "releaseCounter": ["amount"],
        "linkCredential": ["credential", "mergePolicy", "onConflict"],
        "resolveConflict": ["choice", "mergePolicy", "ticket"],
        "putDocument": ["expectedVersion", "value", "valueBase64"],
        "importDocuments": ["documents"],
        "startPasswordReset": ["email", "verifierChallenge"],
        "completePasswordReset": ["newPassword", "token", "verifier"],
        "changePassword": ["currentPassword", "newPassword"],
        "startEmailChange": ["currentPassword", "newEmail", "verifierChallenge"],
        "completeEmailChange": ["token", "verifier"],
        "createDeviceKeyChallenge": ["purpose"],
        "registerDeviceKey": ["challenge", "publicKey", "signature"],
    ]
}
