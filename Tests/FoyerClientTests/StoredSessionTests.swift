import Foundation
import FoyerAPI
import FoyerClient
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

@Suite("Session files")
struct StoredSessionTests {
    private func scratchDirectory() throws -> URL {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("foyer-session-test-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory
    }

    private let tokens = SessionTokens(
        uid: "u1uid",
        isAnonymous: true,
        sessionID: "s1",
        accessToken: "a.b.c",
        accessTokenExpiresAtMilliseconds: 1_700_000_900_000,
        refreshToken: "r1",
        refreshTokenExpiresAtMilliseconds: 1_702_592_000_000
    )

    private func mode(_ path: String) -> mode_t {
        var info = stat()
        #expect(stat(path, &info) == 0)
        return info.st_mode & 0o777
    }

    @Test("A session survives a round trip through its file, written with mode 0600")
    func roundTrip() throws {
        let directory = try scratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("session.json").path
        let verifier = EmailLinkVerifier()
        let stored = StoredSession(
            gateway: "127.0.0.1:7400",
            session: tokens,
            pendingEmailLink: .init(email: "a@example.com", purpose: .link, verifier: verifier, sentAt: Date())
        )
        try stored.save(to: path)
        #expect(mode(path) == 0o600)

        let loaded = try #require(try StoredSession.load(from: path))
        #expect(loaded == stored)
        #expect(loaded.sessionTokens == tokens)
        #expect(loaded.gateway == "127.0.0.1:7400")
        #expect(try loaded.pendingEmailLink?.emailLinkVerifier() == verifier)
        #expect(loaded.pendingEmailLink?.linkPurpose == .link)

        // The file is plain JSON with the documented names.
        let object = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? [String: Any]
        )
        let session = try #require(object["session"] as? [String: Any])
        #expect(session["uid"] as? String == "u1uid")
        #expect(session["accessTokenExpiresAt"] as? Int == 1_700_000_900_000)
        #expect(object["version"] as? Int == 1)
    }

    @Test("Rewriting replaces the file atomically, resets a loose mode to 0600 and leaves no temporary files")
    func rewriteIsAtomic() throws {
        let directory = try scratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("session.json").path
        try "{}".write(toFile: path, atomically: false, encoding: .utf8)
        chmod(path, 0o644)
        var stored = StoredSession(gateway: "h:1", session: tokens)
        try stored.save(to: path)
        #expect(mode(path) == 0o600)
        stored.sessionTokens?.accessToken = "x.y.z"
        try stored.save(to: path)
        #expect(try StoredSession.load(from: path)?.session?.accessToken == "x.y.z")
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["session.json"])
        try StoredSession.remove(at: path)
        #expect(try StoredSession.load(from: path) == nil)
        try StoredSession.remove(at: path)
    }

    @Test("A missing file is no session; a file that is not a session is an error")
    func unreadableFiles() throws {
        let directory = try scratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        #expect(try StoredSession.load(from: directory.appendingPathComponent("none.json").path) == nil)
        let garbage = directory.appendingPathComponent("garbage.json").path
        try "not json".write(toFile: garbage, atomically: true, encoding: .utf8)
        #expect(throws: FoyerError.sessionStorage) { try StoredSession.load(from: garbage) }
        let newer = directory.appendingPathComponent("newer.json").path
        try #"{"version": 99}"#.write(toFile: newer, atomically: true, encoding: .utf8)
        #expect(throws: FoyerError.sessionStorage) { try StoredSession.load(from: newer) }
        #expect(throws: FoyerError.sessionStorage) {
            try StoredSession(session: tokens).save(to: directory.appendingPathComponent("no/such/dir/s.json").path)
        }
    }

    @Test("A client restored from a session file goes on with the same user")
    func restoredClient() async throws {
        try await withStack { stack in
            let path = stack.directory.appendingPathComponent("session.json").path
            let uid = try await stack.withClient(sessionDidChange: { session in
                try? StoredSession(gateway: "127.0.0.1:\(stack.gatewayPort)", session: session).save(to: path)
            }) { client in
                try await client.signInAsGuest().uid
            }
            let stored = try #require(try StoredSession.load(from: path))
            try await stack.withClient(session: stored.sessionTokens) { client async throws in
                #expect(try await client.me().user.uid == uid)
            }
        }
    }
}
