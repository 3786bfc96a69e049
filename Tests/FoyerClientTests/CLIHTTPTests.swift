import Foundation
import FoyerClient
import Testing

/// `foyer --gateway http://…` (and `https://…`): the same commands through the gateway's HTTP edge.
@Suite("The foyer command line over the HTTP edge")
struct CLIHTTPTests {
    @Test("guest, put and get over HTTP; the session file remembers the HTTP gateway for the next command")
    func commandsOverHTTP() async throws {
        try await withHTTPEdge { edge in
            let session = edge.stack.sessionFile("http")
            let guest = try await CLI.run(["guest", "--gateway", edge.baseURL, "--session", session])
            #expect(guest.status == 0, "\(guest.stderr)")
            let uid = try #require(try guest.output()["uid"] as? String)

            // No --gateway: the session file's, which is the HTTP edge's URL
            let put = try await CLI.run(["put", "--session", session, "notes", "n1", "over HTTP"])
            #expect(put.status == 0, "\(put.stderr)")
            let stored = try StoredSession.load(from: session)
            #expect(stored?.gateway == edge.baseURL)

            // The binary listener sees the same document for the same user
            let tokens = try #require(stored?.sessionTokens)
            let (me, document) = try await edge.stack.withClient(session: tokens) { client in
                (try await client.me(), try await client.get("notes", "n1"))
            }
            #expect(me.user.uid == uid)
            #expect(document?.text == "over HTTP")

            let found = try await CLI.run(["get", "--session", session, "notes", "n1"])
            #expect(try found.output()["value"] as? String == "over HTTP")
            let missing = try await CLI.run(["get", "--session", session, "notes", "none"])
            #expect(missing.status == 0, "\(missing.stderr)")
            #expect(try missing.output()["found"] as? Bool == false)
        }
    }

    @Test("--tls with an http:// gateway is refused before anything is sent")
    func tlsNeedsHTTPS() async throws {
        let refused = try await CLI.run(["me", "--gateway", "http://127.0.0.1:1", "--tls"])
        #expect(refused.status != 0)
        #expect(try refused.error()["error"] as? String == "invalid-input")
        #expect(refused.stderr.contains("https://"))
    }
}
