import Foundation
import FoyerJSON
import Testing

/// `POST /v1/me/quota/{counter}/consume` and `/release` on the HTTP edge: the answers and every refusal's status.
@Suite("HTTP edge: app-defined counters")
struct HTTPEdgeCounterTests {
    @Test("consume answers the counter; over the limit 403 quota-exceeded with its fields; a retried key counts once")
    func consume() async throws {
        try await withHTTPEdge(options: AppCounterClientTests.options) { edge in
            let token = try await guestToken(edge)
            let first = try await edge.send(
                "POST",
                "/v1/me/quota/uploads/consume",
                token: token,
                idempotencyKey: "up-1",
                json: ["amount": 2]
            )
            #expect(first.status == 200)
            #expect(first.json == ["counter": "uploads", "limit": 3, "used": 2, "remaining": 1])
            let retried = try await edge.send(
                "POST",
                "/v1/me/quota/uploads/consume",
                token: token,
                idempotencyKey: "up-1",
                json: ["amount": 2]
            )
            #expect(retried.status == 200)
            #expect(retried["used"]?.int == 2)
            // No body: an amount of 1.
            let last = try await edge.send("POST", "/v1/me/quota/uploads/consume", token: token, idempotencyKey: "up-2")
            #expect(last["remaining"]?.int == 0)

            let refused = try await edge.send(
                "POST",
                "/v1/me/quota/uploads/consume",
                token: token,
                idempotencyKey: "up-3",
                json: ["amount": 1]
            )
            #expect(refused.status == 403)
            #expect(refused.header("Content-Type") == "application/problem+json")
            #expect(refused["code"]?.string == "quota-exceeded")
            #expect(refused["counter"]?.string == "uploads")
            #expect(refused["limit"]?.int == 3)
            #expect(refused["used"]?.int == 3)
            #expect(refused["remaining"]?.int == 0)
            #expect(refused["requested"]?.int == 1)

            let released = try await edge.send(
                "POST",
                "/v1/me/quota/uploads/release",
                token: token,
                idempotencyKey: "up-1",
                json: ["amount": 2]
            )
            #expect(released.status == 200)
            #expect(released["used"]?.int == 1)

            let quota = try await edge.send("GET", "/v1/me/quota", token: token)
            let counters = quota["counters"]?.array?.compactMap { $0["counter"]?.string }
            #expect(counters == ["bytes", "documents", "transactions", "uploads"])
        }
    }

    @Test("reserved counter 403, unknown counter 404, bad amount 400, missing key 400, no token 401")
    func refusals() async throws {
        try await withHTTPEdge(options: AppCounterClientTests.options) { edge in
            let token = try await guestToken(edge)
            func consume(
                _ counter: String,
                key: String? = "k",
                json: JSONValue? = nil,
                token: String? = nil
            )
                async throws -> HTTPEdge.Answer
            {
                try await edge.send(
                    "POST",
                    "/v1/me/quota/\(counter)/consume",
                    token: token,
                    idempotencyKey: key,
                    json: json
                )
            }
            for counter in ["documents", "bytes", "documents:notes"] {
                for action in ["consume", "release"] {
                    let reserved = try await edge.send(
                        "POST",
                        "/v1/me/quota/\(counter)/\(action)",
                        token: token,
                        idempotencyKey: "k"
                    )
                    #expect(reserved.status == 403, "\(action) \(counter)")
                    #expect(reserved["code"]?.string == "counter-reserved")
                }
            }
            let unknown = try await consume("photos", token: token)
            #expect(unknown.status == 404)
            #expect(unknown["code"]?.string == "unknown-counter")
            for amount: JSONValue in [0, -1, .double(1.5), "2", .uint(1 << 41), .uint(.max)] {
                let bad = try await consume("transactions", json: ["amount": amount], token: token)
                #expect(bad.status == 400, "amount \(amount)")
                #expect(bad["code"]?.string == "invalid-argument")
            }
            let noKey = try await consume("transactions", key: nil, token: token)
            #expect(noKey.status == 400)
            #expect(noKey["detail"]?.string?.contains("Idempotency-Key") == true)
            let longKey = try await consume("transactions", key: String(repeating: "k", count: 129), token: token)
            #expect(longKey.status == 400)
            #expect(try await consume("transactions").status == 401)
            // Nothing of the above counted.
            let quota = try await edge.send("GET", "/v1/me/quota", token: token)
            let transactions = quota["counters"]?.array?.first { $0["counter"]?.string == "transactions" }
            #expect(transactions?["used"]?.int == 0)
        }
    }

    private func guestToken(_ edge: HTTPEdge) async throws -> String {
        let guest = try await edge.send("POST", "/v1/guests", idempotencyKey: guestKey())
        return try #require(guest["accessToken"]?.string)
    }
}
