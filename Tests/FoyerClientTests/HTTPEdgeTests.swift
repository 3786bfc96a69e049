import Foundation
import FoyerAPI
import FoyerJSON
import FoyerRPC
import Testing

@testable import FoyerGatewayHTTP

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite("The gateway's HTTP/JSON edge")
struct HTTPEdgeTests {
    @Test("A guest puts until the 21st is refused with problem+json, links email and password, keeps its uid")
    func guestJourney() async throws {
        try await withHTTPEdge { edge in
            // Given a guest
            let guest = try await edge.send("POST", "/v1/guests", idempotencyKey: guestKey())
            #expect(guest.status == 201)
            #expect(guest["isAnonymous"]?.bool == true)
            let uid = try #require(guest["uid"]?.string)
            let token = try #require(guest["accessToken"]?.string)
            #expect(guest["accessTokenExpiresAt"]?.string?.hasSuffix("Z") == true)

            // When it puts 20 documents, the 21st is refused with the counts
            for index in 1...20 {
                let put = try await edge.send(
                    "PUT",
                    "/v1/documents/notes/n\(index)",
                    token: token,
                    idempotencyKey: UUID().uuidString,
                    json: ["value": ["text": .string("note \(index)")]]
                )
                #expect(put.status == 200)
                #expect(put["version"]?.int == 1)
            }
            let refused = try await edge.send(
                "PUT",
                "/v1/documents/notes/n21",
                token: token,
                idempotencyKey: UUID().uuidString,
                json: ["value": "one too many"]
            )
            #expect(refused.status == 403)
            #expect(refused.header("Content-Type") == "application/problem+json")
            #expect(refused["code"]?.string == "quota-exceeded")
            #expect(refused["type"]?.string == "https://foyer.dev/problems/quota-exceeded")
            #expect(refused["status"]?.int == 403)
            #expect(refused["counter"]?.string == "documents")
            #expect(refused["limit"]?.int == 20)
            #expect(refused["used"]?.int == 20)
            #expect(refused["remaining"]?.int == 0)
            #expect(refused["requested"]?.int == 1)

            // Then linking an email and password makes it a member with the same uid, and the 21st fits
            let linked = try await edge.send(
                "POST",
                "/v1/me/credentials",
                token: token,
                json: [
                    "credential": [
                        "type": "password", "email": .string(uniqueEmail()), "password": .string(strongPassword),
                    ]
                ]
            )
            #expect(linked.status == 200)
            #expect(linked["outcome"]?.string == "linked")
            let session = try #require(linked["session"])
            #expect(session["uid"]?.string == uid)
            #expect(session["isAnonymous"]?.bool == false)
            let memberToken = try #require(session["accessToken"]?.string)
            let accepted = try await edge.send(
                "PUT",
                "/v1/documents/notes/n21",
                token: memberToken,
                idempotencyKey: UUID().uuidString,
                json: ["value": "now it fits"]
            )
            #expect(accepted.status == 200)

            let me = try await edge.send("GET", "/v1/me", token: memberToken)
            #expect(me.status == 200)
            #expect(me["user"]?["uid"]?.string == uid)
            #expect(me["user"]?["hasPassword"]?.bool == true)
            #expect(me["usage"]?["plan"]?.string == "member")

            let document = try await edge.send("GET", "/v1/documents/notes/n1", token: memberToken)
            #expect(document["value"] == ["text": "note 1"])
            let page = try await edge.send("GET", "/v1/documents/notes?pageSize=15", token: memberToken)
            #expect(page["documents"]?.array?.count == 15)
            let next = try #require(page["nextCursor"]?.string)
            let rest = try await edge.send("GET", "/v1/documents/notes?pageSize=15&cursor=\(next)", token: memberToken)
            #expect(rest["documents"]?.array?.count == 6)
            #expect(rest["nextCursor"] == nil)

            let deleted = try await edge.send("DELETE", "/v1/documents/notes/n1", token: memberToken)
            #expect(deleted["deleted"]?.bool == true)
            let gone = try await edge.send("GET", "/v1/documents/notes/n1", token: memberToken)
            #expect(gone.status == 404)
            #expect(gone["code"]?.string == "not-found")

            // And deleting the account refuses its token afterwards
            let deletion = try await edge.send("DELETE", "/v1/me", token: memberToken)
            #expect(deletion.status == 200)
            #expect(deletion["documentsDeleted"]?.int == 20)
            let after = try await edge.send("GET", "/v1/me", token: memberToken)
            #expect(after.status == 401)
        }
    }

    @Test("A guest linking a taken email with the default onConflict gets outcome conflict with the other uid")
    func conflictIsAnOutcome() async throws {
        try await withHTTPEdge { edge in
            let email = uniqueEmail()
            let credential: JSONValue = [
                "type": "password", "email": .string(email), "password": .string(strongPassword),
            ]
            let first = try await edge.send("POST", "/v1/guests", idempotencyKey: guestKey())
            let firstToken = try #require(first["accessToken"]?.string)
            let member = try await edge.send(
                "POST",
                "/v1/me/credentials",
                token: firstToken,
                json: ["credential": credential]
            )
            #expect(member["outcome"]?.string == "linked")

            let second = try await edge.send("POST", "/v1/guests", idempotencyKey: guestKey())
            let secondToken = try #require(second["accessToken"]?.string)
            let conflict = try await edge.send(
                "POST",
                "/v1/me/credentials",
                token: secondToken,
                idempotencyKey: UUID().uuidString,
                json: ["credential": credential]
            )
            #expect(conflict.status == 200)
            #expect(conflict["outcome"]?.string == "conflict")
            #expect(conflict["conflict"]?["otherUid"] == first["uid"])
            #expect(conflict["conflict"]?["ticket"]?.string?.isEmpty == false)
            #expect(conflict["session"] == nil)

            // The password signs in to the account
            let signIn = try await edge.send("POST", "/v1/sessions", json: ["credential": credential])
            #expect(signIn.status == 200)
            #expect(signIn["uid"] == first["uid"])
            let refreshed = try await edge.send(
                "POST",
                "/v1/sessions/refresh",
                json: ["refreshToken": try #require(signIn["refreshToken"])]
            )
            #expect(refreshed.status == 200)
            #expect(refreshed["uid"] == first["uid"])
        }
    }

    @Test("Failures are problem+json with the mapped status: 401, 404, 405, 400, 415, 413")
    func problems() async throws {
        try await withHTTPEdge {
            $0.bodyByteCountMax = 4096
        } _: { edge in
            let badToken = try await edge.send("GET", "/v1/me", token: "not-a-token")
            #expect(badToken.status == 401)
            let challenge = try #require(badToken.header("WWW-Authenticate"))
            let prefix = "Bearer error=\"invalid_token\", error_description=\""
            #expect(challenge.hasPrefix(prefix + "invalid-token: "))
            #expect(challenge.hasSuffix("\""))
            #expect(!challenge.dropFirst(prefix.count).dropLast().contains { $0 == "\"" || $0 == "\\" })
            #expect(badToken.header("Content-Type") == "application/problem+json")
            #expect(badToken["code"]?.string == "invalid-token")
            #expect(badToken["wireStatus"]?.int == 0x3101)

            // RFC 6750 section 3.1: no error code when the request carried no token
            let noToken = try await edge.send("GET", "/v1/me")
            #expect(noToken.status == 401)
            #expect(noToken.header("WWW-Authenticate") == "Bearer")

            let unknown = try await edge.send("GET", "/v1/nothing-here")
            #expect(unknown.status == 404)
            #expect(unknown["code"]?.string == "not-found")

            let wrongVerb = try await edge.send("PATCH", "/v1/me")
            #expect(wrongVerb.status == 405)
            #expect(wrongVerb.header("Allow")?.contains("GET") == true)

            let guest = try await edge.send("POST", "/v1/guests", idempotencyKey: guestKey())
            let token = try #require(guest["accessToken"]?.string)
            let badJSON = try await edge.send(
                "PUT",
                "/v1/documents/notes/a",
                token: token,
                idempotencyKey: "key-1",
                headers: ["Content-Type": "application/json"],
                rawBody: Data("{not json".utf8)
            )
            #expect(badJSON.status == 400)
            #expect(badJSON["code"]?.string == "invalid-argument")

            // A body that is not application/json is refused: a text/plain one needs no CORS preflight
            let plainText = try await edge.send(
                "PUT",
                "/v1/documents/notes/a",
                token: token,
                idempotencyKey: "key-3",
                headers: ["Content-Type": "text/plain"],
                rawBody: Data(#"{"value": "x"}"#.utf8)
            )
            #expect(plainText.status == 415)
            #expect(plainText.header("Content-Type") == "application/problem+json")
            #expect(plainText["code"]?.string == "unsupported-media-type")
            let withCharset = try await edge.send(
                "PUT",
                "/v1/documents/notes/a",
                token: token,
                idempotencyKey: "key-4",
                headers: ["Content-Type": "Application/JSON; charset=utf-8"],
                rawBody: Data(#"{"value": "x"}"#.utf8)
            )
            #expect(withCharset.status == 200)

            // A member the document does not name is refused, by name, in a nested object too
            let unknownMember = try await edge.send(
                "PUT",
                "/v1/documents/notes/b",
                token: token,
                idempotencyKey: "key-5",
                json: ["value": "x", "expectedVersoin": 1]
            )
            #expect(unknownMember.status == 400)
            #expect(unknownMember["code"]?.string == "invalid-argument")
            #expect(unknownMember["detail"]?.string?.contains("\"expectedVersoin\"") == true)
            let unknownNested = try await edge.send(
                "POST",
                "/v1/sessions",
                json: ["credential": ["type": "password", "email": "a@b.example", "password": "x", "pin": "1"]]
            )
            #expect(unknownNested.status == 400)
            #expect(unknownNested["detail"]?.string?.contains("\"credential.pin\"") == true)

            // A bodyless call needs no Content-Type
            let bodyless = try await edge.send("DELETE", "/v1/documents/notes/a", token: token)
            #expect(bodyless.status == 200)

            let noKey = try await edge.send("POST", "/v1/guests")
            #expect(noKey.status == 400)
            #expect(noKey["detail"]?.string?.contains("Idempotency-Key") == true)

            let oversized = try await edge.send(
                "PUT",
                "/v1/documents/notes/big",
                token: token,
                idempotencyKey: "key-2",
                json: ["value": .string(String(repeating: "x", count: 5000))]
            )
            #expect(oversized.status == 413)
            #expect(oversized["code"]?.string == "body-too-large")
        }
    }

    @Test("A guest that deleted itself: its old token is refused with 401 on every kind of call")
    func deletedGuestsTokenIs401() async throws {
        try await withHTTPEdge { edge in
            let guest = try await edge.send("POST", "/v1/guests", idempotencyKey: guestKey())
            let token = try #require(guest["accessToken"]?.string)
            let put = try await edge.send(
                "PUT",
                "/v1/documents/notes/a",
                token: token,
                idempotencyKey: UUID().uuidString,
                json: ["value": "x"]
            )
            #expect(put.status == 200)
            let deletion = try await edge.send("DELETE", "/v1/me", token: token, idempotencyKey: UUID().uuidString)
            #expect(deletion.status == 200)

            let calls: [(String, String, JSONValue?)] = [
                ("GET", "/v1/me", nil), ("GET", "/v1/me/quota", nil), ("GET", "/v1/documents/notes/a", nil),
                ("GET", "/v1/documents/notes", nil), ("PUT", "/v1/documents/notes/b", ["value": "y"]),
                ("POST", "/v1/me/quota/documents/consume", nil), ("DELETE", "/v1/me", nil),
            ]
            for (verb, path, json) in calls {
                let refused = try await edge.send(
                    verb,
                    path,
                    token: token,
                    idempotencyKey: UUID().uuidString,
                    json: json
                )
                #expect(refused.status == 401, "\(verb) \(path): \(refused.status) \(refused["code"]?.string ?? "")")
                #expect(refused.header("WWW-Authenticate")?.hasPrefix("Bearer error=\"invalid_token\"") == true)
            }
        }
    }

    @Test("The services' statuses for a user being deleted are 401 for the caller's own calls, as before otherwise")
    func callerGoneMapping() {
        for status in [IdentityStatus.accountNotActive, GuestQuotaStatus.accountNotFound, UserDataStatus.uidDeleted] {
            let error = RPCError(status, "the user is being deleted")
            #expect(HTTPProblem(error, forCaller: true).status == 401)
            #expect(HTTPProblem(error).status != 401)
        }
        #expect(ProblemMapping.touchesAnotherAccount.isSubset(of: Set(HTTPOperations.all.map(\.operationID))))
    }

    @Test("A request head past the 16 KiB cap is answered 431 problem+json, not an empty 400")
    func oversizedHead() async throws {
        try await withHTTPEdge { edge in
            let port = try #require(URL(string: edge.baseURL)?.port)
            let connection = try await RawHTTPConnection.connect(port: port, from: "127.0.0.1")
            let padding = String(repeating: "x", count: 20 * 1024)
            try await connection.send("GET /v1/me HTTP/1.1\r\nHost: gateway\r\nX-Padding: \(padding)\r\n\r\n")
            let answer = try await connection.readUntilClosed()
            #expect(answer.hasPrefix("HTTP/1.1 431"))
            #expect(answer.lowercased().contains("content-type: application/problem+json"))
            let body = try #require(answer.range(of: "\r\n\r\n").map { answer[$0.upperBound...] })
            let problem = try #require(JSONValue.parse(Array(body.utf8)))
            #expect(problem["code"]?.string == "request-header-fields-too-large")
            #expect(problem["status"]?.int == 431)
            let limit: Int64 = 16 * 1024
            #expect(problem["headerLimit"]?.int == limit)
        }
    }

    @Test("What Schemathesis found: null members are refused, a concrete path wins, key reuse and unknown names")
    func documentAndServerAgree() async throws {
        try await withHTTPEdge { edge in
            let key = guestKey()
            let guest = try await edge.send("POST", "/v1/guests", idempotencyKey: key)
            let token = try #require(guest["accessToken"]?.string)
            // No schema allows null: an optional member is absent or of its type.
            let nullVersion = try await edge.send(
                "PUT",
                "/v1/documents/notes/n1",
                token: token,
                idempotencyKey: UUID().uuidString,
                json: ["value": "x", "expectedVersion": .null]
            )
            #expect(nullVersion.status == 400)
            #expect(nullVersion["code"]?.string == "invalid-argument")
            // /v1/documents/import is the import alone (OpenAPI: a concrete path matches before a template).
            let listing = try await edge.send("GET", "/v1/documents/import", token: token)
            #expect(listing.status == 405)
            #expect(listing.header("Allow") == "POST")
            // A feature no plan defines is not found, like a counter.
            let feature = try await edge.send("GET", "/v1/me/features/no-such-feature", token: token)
            #expect(feature.status == 404)
            #expect(feature["code"]?.string == "unknown-feature")
            // A guest key that has made its sessions conflicts with them.
            var reused: HTTPEdge.Answer?
            for _ in 0..<6 { reused = try await edge.send("POST", "/v1/guests", idempotencyKey: key) }
            #expect(reused?.status == 409)
            #expect(reused?["code"]?.string == "idempotency-key-reused")
        }
    }

    @Test("JWKS and OpenID configuration are served for JWT libraries; health and readiness answer")
    func wellKnown() async throws {
        try await withHTTPEdge {
            $0.publicURL = "https://api.example/"
        } _: { edge in
            let jwks = try await edge.send("GET", "/.well-known/jwks.json")
            #expect(jwks.status == 200)
            #expect(jwks.header("Cache-Control") == "public, max-age=300")
            let keys = try #require(jwks["keys"]?.array)
            #expect(!keys.isEmpty)
            #expect(keys.first?["kty"]?.string == "EC" && keys.first?["alg"]?.string == "ES256")
            #expect(keys.first?["use"]?.string == "sig")

            let openID = try await edge.send("GET", "/.well-known/openid-configuration")
            #expect(openID.status == 200)
            #expect(openID.header("Cache-Control") == "public, max-age=300")
            #expect(openID["issuer"]?.string == edge.stack.gateway.configuration.issuer)
            #expect(openID["issuer"]?.string == "http://127.0.0.1:7480")
            #expect(openID["jwks_uri"]?.string == "https://api.example/.well-known/jwks.json")
            #expect(openID["id_token_signing_alg_values_supported"] == ["ES256"])

            #expect(try await edge.send("GET", "/healthz").status == 200)
            #expect(try await edge.send("GET", "/readyz").status == 200)
        }
    }

    @Test("/openapi.yaml serves the configured document; without one it is a 404 problem")
    func openAPIDocument() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("openapi-\(UUID().uuidString).yaml")
            .path
        try "openapi: 3.1.0\n".write(toFile: path, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        try await withHTTPEdge {
            $0.openAPIPath = path
        } _: { edge in
            var request = URLRequest(url: try #require(URL(string: edge.baseURL + "/openapi.yaml")))
            request.httpMethod = "GET"
            let (data, response) = try await URLSession.shared.data(for: request)
            #expect((response as? HTTPURLResponse)?.statusCode == 200)
            #expect(String(decoding: data, as: UTF8.self) == "openapi: 3.1.0\n")
        }
        try await withHTTPEdge { edge in
            let missing = try await edge.send("GET", "/openapi.yaml")
            #expect(missing.status == 404)
            #expect(missing["code"]?.string == "not-found")
        }
    }

    @Test("CORS: an allowed origin's preflight and calls get the headers; another origin gets none")
    func cors() async throws {
        try await withHTTPEdge {
            $0.corsOrigins = ["https://app.example"]
        } _: { edge in
            let preflight = try await edge.send(
                "OPTIONS",
                "/v1/me",
                headers: ["Origin": "https://app.example", "Access-Control-Request-Method": "GET"]
            )
            #expect(preflight.status == 204)
            #expect(preflight.header("Access-Control-Allow-Origin") == "https://app.example")
            #expect(preflight.header("Access-Control-Allow-Headers")?.contains("Idempotency-Key") == true)
            #expect(preflight.header("Access-Control-Allow-Methods")?.contains("PUT") == true)
            #expect(preflight.header("Access-Control-Max-Age") == "600")
            #expect(preflight.header("Vary") == "Origin")

            let refused = try await edge.send(
                "OPTIONS",
                "/v1/me",
                headers: ["Origin": "https://evil.example", "Access-Control-Request-Method": "GET"]
            )
            #expect(refused.header("Access-Control-Allow-Origin") == nil)

            let call = try await edge.send("GET", "/healthz", headers: ["Origin": "https://app.example"])
            #expect(call.header("Access-Control-Allow-Origin") == "https://app.example")
            #expect(call.header("Access-Control-Expose-Headers") == "Retry-After")
            let other = try await edge.send("GET", "/healthz", headers: ["Origin": "https://evil.example"])
            #expect(other.header("Access-Control-Allow-Origin") == nil)
        }
    }
}
