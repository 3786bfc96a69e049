import Foundation
import FoyerAPI
import FoyerClient
import FoyerTestSupport
import SQLKit
import Testing

extension StackDatabases {
    /// The device keys identity holds for `uid`.
    func deviceKeyCount(of uid: String) async throws -> Int {
        try await identity.withConnection { sql in
            try await sql.raw("SELECT COUNT(*) AS n FROM identity_device_keys WHERE uid = \(bind: uid)").first()?
                .decode(column: "n", as: Int.self) ?? 0
        }
    }
}

/// A key file in a fresh directory of the stack's.
private func keyStore(_ stack: RunningStack) throws -> FileDeviceKeyStore {
    let directory = stack.directory.appendingPathComponent("device-keys-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    return FileDeviceKeyStore(path: directory.appendingPathComponent("key").path)
}

/// Device keys through the real executables: a guest registers a key, and a reinstalled app (a client without
/// tokens) signs in with it to the same uid, data and counted quota; a replayed challenge, one of the other purpose
/// and an expired one are refused; a key never yields another user; a member is refused; deleting the guest, and the
/// clean-up deleting an idle one, remove the keys.
func deviceKeyJourney(_ stack: RunningStack) async throws {
    let store = try keyStore(stack)
    let guest = try await stack.withClient { client async throws in
        let guest = try await client.signInAsGuest()
        try await client.put("notes", "kept", "through the reinstall")
        try await client.registerDeviceKey(in: store)
        return guest
    }
    #expect(try await stack.databases.deviceKeyCount(of: guest.uid) == 1)
    let key = try #require(try store.existingKey())

    try await stack.withClient { reinstalled async throws in
        let session = try #require(try await reinstalled.signInWithDeviceKey(from: store))
        #expect(session.uid == guest.uid && session.isAnonymous)
        #expect(try await reinstalled.get("notes", "kept")?.text == "through the reinstall")
        let used = try await reinstalled.quota().counters.first { $0.counter == "documents" }?.used
        #expect(used == 1, "the reinstall kept the counted quota")

        // The same signed sign-in twice: the challenge was spent by the first.
        let challenge = try await reinstalled.deviceKeyChallenge(for: .signIn)
        let credential = Credential.deviceKey(
            keyID: key.deviceKeyID,
            challenge: challenge.challenge,
            signature: try key.deviceKeySignature(of: challenge, for: .signIn)
        )
        #expect(try await reinstalled.signIn(with: credential).uid == guest.uid)
        #expect(await foyerFailure { try await reinstalled.signIn(with: credential) } == .invalidToken)

        // A register challenge does not sign in, even signed as a sign-in.
        let other = try await reinstalled.deviceKeyChallenge(for: .register)
        let misused = Credential.deviceKey(
            keyID: key.deviceKeyID,
            challenge: other.challenge,
            signature: try key.deviceKeySignature(of: other, for: .signIn)
        )
        #expect(await foyerFailure { try await reinstalled.signIn(with: misused) } == .invalidToken)
    }

    // Another guest cannot take the key, and the key still signs in to its own guest only.
    try await stack.withClient { second async throws in
        _ = try await second.signInAsGuest()
        #expect(await foyerFailure { try await second.registerDeviceKey(in: store) } == .credentialAlreadyInUse)
        #expect(try await second.signInWithDeviceKey(from: store)?.uid == guest.uid)
    }

    // A member is refused, and a guest that becomes a member loses its keys.
    let memberStore = try keyStore(stack)
    try await stack.withClient { client async throws in
        let becoming = try await client.signInAsGuest()
        try await client.registerDeviceKey(in: memberStore)
        _ = try await client.link(email: uniqueEmail("dk-member"), password: "a member's long passphrase")
        #expect(try await stack.databases.deviceKeyCount(of: becoming.uid) == 0)
        #expect(await foyerFailure { try await client.registerDeviceKey(in: memberStore) } == .wrongAccountKind)
    }
    try await stack.withClient { client async throws in
        #expect(await foyerFailure { try await client.signInWithDeviceKey(from: memberStore) } == .invalidCredentials)
    }

    // The command line: register from one session file, sign in from another.
    let cliKey = stack.directory.appendingPathComponent("cli-device-key-\(UUID().uuidString)").path
    let gateway = ["--gateway", "127.0.0.1:\(stack.processes.port(of: .gateway))"]
    let first = stack.directory.appendingPathComponent("dk-first-\(UUID().uuidString).json").path
    let registered = try await stack.foyer(["guest", "--session", first] + gateway)
    let uid = try #require(try jsonObject(registered)["uid"] as? String)
    let cliRegistered = try jsonObject(
        try await stack.foyer(["device-key", "register", "--key-file", cliKey, "--session", first] + gateway)
    )
    #expect(cliRegistered["uid"] as? String == uid && (cliRegistered["keyId"] as? String)?.count == 43)
    let second = stack.directory.appendingPathComponent("dk-second-\(UUID().uuidString).json").path
    let cliSignedIn = try jsonObject(
        try await stack.foyer(["device-key", "sign-in", "--key-file", cliKey, "--session", second] + gateway)
    )
    #expect(cliSignedIn["uid"] as? String == uid)

    // Deleting the guest (its sign-out deletes it) removes its keys with everything else.
    try await stack.withClient(session: nil) { client async throws in
        _ = try #require(try await client.signInWithDeviceKey(from: store))
        #expect(try await client.signOut())
    }
    #expect(try await stack.databases.deviceKeyCount(of: guest.uid) == 0)
    try await stack.withClient { client async throws in
        #expect(await foyerFailure { try await client.signInWithDeviceKey(from: store) } == .invalidCredentials)
    }
    try await expectGone(guest.uid, stack)

    // Last, as they move the clocks: an expired challenge, then the clean-up of an idle guest with a key.
    let idleStore = try keyStore(stack)
    let idle = try await stack.withClient { client async throws in
        let idle = try await client.signInAsGuest()
        try await client.registerDeviceKey(in: idleStore)
        let challenge = try await client.deviceKeyChallenge(for: .signIn)
        try stack.setClockOffset(seconds: RunningStack.offset(stack.clockFile) + 301)
        let late = Credential.deviceKey(
            keyID: try #require(try idleStore.existingKey()).deviceKeyID,
            challenge: challenge.challenge,
            signature: try #require(try idleStore.existingKey()).deviceKeySignature(of: challenge, for: .signIn)
        )
        #expect(await foyerFailure { try await client.signIn(with: late) } == .tokenExpired)
        return idle.uid
    }
    try stack.setClockOffset(seconds: RunningStack.offset(stack.clockFile) + 31 * 86_400)
    let report = try await stack.sweep()
    #expect(report.errors == 0, "\(report)")
    #expect(try await stack.databases.state(of: idle) == nil, "the idle guest was cleaned up")
    #expect(try await stack.databases.deviceKeyCount(of: idle) == 0)
    try await stack.withClient { client async throws in
        #expect(await foyerFailure { try await client.signInWithDeviceKey(from: idleStore) } == .invalidCredentials)
    }
}

private func jsonObject(_ text: String) throws -> [String: Any] {
    try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
}

@Suite("Device keys through the real executables, on each engine", .serialized, .sharedStackPerEngine)
struct DeviceKeyJourneyTests {
    @Test(
        "a reinstall signs in with the key to the same guest; replays, other purposes, other users, members refused",
        arguments: testedEngines
    )
    func journey(engine: TestEngine) async throws { try await deviceKeyJourney(SharedStack.get(engine)) }
}
