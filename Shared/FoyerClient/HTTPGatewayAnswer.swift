import FoyerAPI
import FoyerBase64URL
import FoyerJSON
import FoyerWire
import NIOCore

/// Reads the HTTP edge's JSON answers (`GatewayJSON` on the server) back into the `FoyerAPI` values the binary
/// transport answers, so callers see the same values whichever transport they use. Times come at millisecond
/// precision (a document's `updatedAtMicroseconds` is a whole number of milliseconds over HTTP).
enum HTTPGatewayAnswer {
    /// The response of `methodID` from an answer's JSON; `internal` if the JSON is not the documented shape.
    static func decode(_ methodID: UInt16, _ json: JSONValue) throws(FoyerError) -> any WireMessage {
        do throws(AnswerError) {
            return try decodeShape(methodID, json)
        } catch {
            throw FoyerError(status: .internal, message: "unreadable HTTP answer: \(error.message)")
        }
    }

    private static func decodeShape(_ methodID: UInt16, _ json: JSONValue) throws(AnswerError) -> any WireMessage {
        switch methodID {
        case GatewayMethods.signUpChallenge.id:
            guard let challenge = try? Base64URL.decode(try json.string("challenge")) else {
                throw AnswerError(message: "challenge is not base64url")
            }
            let difficulty = try json.count("difficulty")
            guard difficulty <= UInt64(SignUpChallenge.difficultyMax) else {
                throw AnswerError(message: "difficulty \(difficulty) is over \(SignUpChallenge.difficultyMax)")
            }
            return SignUpChallenge(
                challenge: challenge,
                difficulty: UInt8(difficulty),
                expiresAtMilliseconds: try json.time("expiresAt")
            )
        case GatewayMethods.guestSignIn.id, GatewayMethods.guestSignInWithCheck.id, GatewayMethods.signIn.id,
            GatewayMethods.refresh.id,
            GatewayMethods.completePasswordReset.id, GatewayMethods.changePassword.id:
            return try session(json)
        case GatewayMethods.signOut.id:
            return SignOutResponse(accountDeleted: try json.bool("accountDeleted"))
        case GatewayMethods.startEmailLink.id, GatewayMethods.startPasswordReset.id,
            GatewayMethods.signOutEverywhere.id, GatewayMethods.unlinkCredential.id,
            GatewayMethods.startEmailChange.id, GatewayMethods.completeEmailChange.id:
            return Empty()
        case GatewayMethods.me.id:
            return MeResponse(user: try user(try json.member("user")), usage: try usage(try json.member("usage")))
        case GatewayMethods.quota.id:
            return try usage(json)
        case GatewayMethods.checkFeature.id:
            return FeatureCheckResponse(plan: try json.string("plan"), enabled: try json.bool("enabled"))
        case GatewayMethods.consumeCounter.id, GatewayMethods.releaseCounter.id:
            return try counter(json)
        case GatewayMethods.link.id, GatewayMethods.resolveConflict.id:
            return try linkResult(json)
        case GatewayMethods.deleteAccount.id:
            return DeletionReport(documentsDeleted: try json.count("documentsDeleted"))
        case GatewayMethods.putDocument.id:
            return PutDocumentResponse(
                version: try json.count("version"),
                updatedAtMicroseconds: Int64(try json.time("updatedAt")) * 1000
            )
        case GatewayMethods.getDocument.id:
            return GetDocumentResponse(document: try document(json))
        case GatewayMethods.deleteDocument.id:
            return DeleteDocumentResponse(deleted: try json.bool("deleted"))
        case GatewayMethods.listDocuments.id, GatewayMethods.exportDocuments.id:
            return try page(json)
        case GatewayMethods.importDocuments.id:
            return ImportResponse(written: try json.count("written"))
        case GatewayMethods.jwks.id:
            return JWKSResponse(json: json.bytes)
        case GatewayMethods.deviceKeyChallenge.id:
            return DeviceKeyChallenge(
                challenge: try json.bytes("challenge"),
                issuer: try json.string("issuer"),
                expiresAtMilliseconds: try json.time("expiresAt")
            )
        case GatewayMethods.registerDeviceKey.id:
            return DeviceKeyRegistered(keyID: try json.bytes("keyId"))
        default:
            throw AnswerError(message: "no HTTP answer for method 0x\(String(methodID, radix: 16))")
        }
    }

    static func session(_ json: JSONValue) throws(AnswerError) -> SessionTokens {
        SessionTokens(
            uid: try json.string("uid"),
            isAnonymous: try json.bool("isAnonymous"),
            sessionID: try json.string("sessionId"),
            accessToken: try json.string("accessToken"),
            accessTokenExpiresAtMilliseconds: try json.time("accessTokenExpiresAt"),
            refreshToken: try json.string("refreshToken"),
            refreshTokenExpiresAtMilliseconds: try json.time("refreshTokenExpiresAt")
        )
    }

    static func linkResult(_ json: JSONValue) throws(AnswerError) -> LinkResult {
        switch try json.string("outcome") {
        case "linked": return .linked(try session(try json.member("session")))
        case "discarded": return .discarded(try session(try json.member("session")))
        case "merged":
            return .merged(try session(try json.member("session")), try mergeReport(try json.member("mergeReport")))
        case "conflict":
            let conflict = try json.member("conflict")
            return .conflict(
                ConflictDetails(
                    otherUID: try conflict.string("otherUid"),
                    ticket: try conflict.string("ticket"),
                    ticketExpiresAtMilliseconds: try conflict.time("ticketExpiresAt")
                )
            )
        case let outcome: throw AnswerError(message: "unknown outcome \(outcome)")
        }
    }

    static func mergeReport(_ json: JSONValue) throws(AnswerError) -> MergeReport {
        let conflicts = try json.array("listedConflicts").map { item throws(AnswerError) in
            let resolution: MergeReport.Resolution
            switch try item.string("resolution") {
            case "kept-account": resolution = .keptAccount
            case "kept-guest": resolution = .keptGuest
            case "kept-both": resolution = .keptBoth
            case let other: throw AnswerError(message: "unknown resolution \(other)")
            }
            return MergeReport.Conflict(
                collection: try item.string("collection"),
                key: try item.string("key"),
                resolution: resolution,
                derivedKey: try item.optionalString("derivedKey")
            )
        }
        return MergeReport(
            moved: try json.count("moved"),
            conflicts: try json.count("conflicts"),
            keptAccount: try json.count("keptAccount"),
            keptGuest: try json.count("keptGuest"),
            keptBoth: try json.count("keptBoth"),
            listedConflicts: conflicts
        )
    }

    static func user(_ json: JSONValue) throws(AnswerError) -> UserInfo {
        let providers = try json.array("providers").map { item throws(AnswerError) in
            let name = try item.string("provider")
            guard let provider = IdentityProvider.allCases.first(where: { $0.description == name }) else {
                throw AnswerError(message: "unknown provider \(name)")
            }
            return LinkedIdentity(
                provider: provider,
                subject: try item.string("subject"),
                email: try item.optionalString("email"),
                emailTrusted: try item.bool("emailTrusted")
            )
        }
        let uid = try json.string("uid")
        let stateName = try json.string("state")
        guard let kind = AccountStateKind.allCases.first(where: { $0.description == stateName }) else {
            throw AnswerError(message: "unknown account state \(stateName)")
        }
        return UserInfo(
            uid: uid,
            isAnonymous: try json.bool("isAnonymous"),
            state: AccountState(uid: uid, kind: kind),
            createdAtMilliseconds: try json.time("createdAt"),
            lastActivityAtMilliseconds: try json.time("lastActivityAt"),
            email: try json.optionalString("email"),
            emailVerified: try json.bool("emailVerified"),
            hasPassword: try json.bool("hasPassword"),
            providers: providers
        )
    }

    static func counter(_ json: JSONValue) throws(AnswerError) -> CounterUsage {
        CounterUsage(counter: try json.string("counter"), limit: try json.count("limit"), used: try json.count("used"))
    }

    static func usage(_ json: JSONValue) throws(AnswerError) -> QuotaUsageResponse {
        QuotaUsageResponse(
            plan: try json.string("plan"),
            counters: try json.array("counters").map { item throws(AnswerError) in try counter(item) },
            features: try json.array("features").map { item throws(AnswerError) in
                FeatureFlag(feature: try item.string("feature"), enabled: try item.bool("enabled"))
            }
        )
    }

    /// A document: `value` (JSON, kept as the same compact sorted-key text the gateway stores for it) or
    /// `valueBase64` (the stored bytes).
    static func document(_ json: JSONValue) throws(AnswerError) -> StoredDocument {
        let value: ByteBuffer
        if let text = try json.optionalString("valueBase64") {
            guard let bytes = try? Base64URL.decode(text) else {
                throw AnswerError(message: "valueBase64 is not base64url")
            }
            value = ByteBuffer(bytes: bytes)
        } else {
            value = ByteBuffer(bytes: try json.member("value").bytes)
        }
        return StoredDocument(
            collection: try json.string("collection"),
            key: try json.string("key"),
            value: value,
            version: try json.count("version"),
            updatedAtMicroseconds: Int64(try json.time("updatedAt")) * 1000
        )
    }

    static func page(_ json: JSONValue) throws(AnswerError) -> DocumentPage {
        var cursor: ByteBuffer?
        if let text = try json.optionalString("nextCursor") {
            guard let bytes = try? Base64URL.decode(text) else {
                throw AnswerError(message: "nextCursor is not base64url")
            }
            cursor = ByteBuffer(bytes: bytes)
        }
        return DocumentPage(documents: try json.array("documents").map(document), nextCursor: cursor)
    }
}

/// What is wrong with an answer's JSON (becomes `internal`).
struct AnswerError: Error {
    var message: String
}

extension JSONValue {
    /// The member `name` of an object.
    fileprivate func member(_ name: String) throws(AnswerError) -> JSONValue {
        guard case .object(let members) = self, let value = members[name], value != .null else {
            throw AnswerError(message: "\"\(name)\" is missing")
        }
        return value
    }

    fileprivate func string(_ name: String) throws(AnswerError) -> String {
        guard case .string(let value) = try member(name) else { throw AnswerError(message: "\"\(name)\" is no string") }
        return value
    }

    fileprivate func optionalString(_ name: String) throws(AnswerError) -> String? {
        guard case .object(let members) = self else { throw AnswerError(message: "an object was expected") }
        switch members[name] {
        case nil, .null?: return nil
        case .string(let value)?: return value
        default: throw AnswerError(message: "\"\(name)\" is no string")
        }
    }

    fileprivate func bool(_ name: String) throws(AnswerError) -> Bool {
        guard case .bool(let value) = try member(name) else { throw AnswerError(message: "\"\(name)\" is no boolean") }
        return value
    }

    /// A non-negative integer member.
    fileprivate func count(_ name: String) throws(AnswerError) -> UInt64 {
        switch try member(name) {
        case .int(let value) where value >= 0: return UInt64(value)
        case .uint(let value): return value
        default: throw AnswerError(message: "\"\(name)\" is no count")
        }
    }

    fileprivate func array(_ name: String) throws(AnswerError) -> [JSONValue] {
        guard case .array(let items) = try member(name) else { throw AnswerError(message: "\"\(name)\" is no array") }
        return items
    }

    /// A base64url member's bytes.
    fileprivate func bytes(_ name: String) throws(AnswerError) -> [UInt8] {
        guard let bytes = try? Base64URL.decode(try string(name)) else {
            throw AnswerError(message: "\"\(name)\" is no base64url")
        }
        return bytes
    }

    /// An RFC 3339 time member, as milliseconds since 1970.
    fileprivate func time(_ name: String) throws(AnswerError) -> UInt64 {
        guard let milliseconds = RFC3339.parseMilliseconds(try string(name)) else {
            throw AnswerError(message: "\"\(name)\" is no RFC 3339 time")
        }
        return milliseconds
    }
}
