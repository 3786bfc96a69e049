import Foundation
import FoyerAPI
import FoyerClient
import FoyerTestSupport
import Testing

@Suite("Device keys through FoyerClient, over both gateway transports")
struct DeviceKeyClientTests {
    /// A key file in a fresh directory.
    private func keyStore() throws -> FileDeviceKeyStore {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("foyer-dk-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return FileDeviceKeyStore(path: directory.appendingPathComponent("device-key").path)
    }

    @Test(
        "A guest registers a key; after a reinstall (a client without tokens) the key signs in to the same guest",
        arguments: GatewayTransportKind.allCases
    )
    func reinstall(transport: GatewayTransportKind) async throws {
        let store = try keyStore()
        try await withHTTPEdge { edge in
            let guest = try await edge.withClient(transport) { client in
                let guest = try await client.signInAsGuest()
                try await client.put("notes", "n", "kept")
                let keyID = try await client.registerDeviceKey(in: store)
                let key = try #require(try store.existingKey())
                #expect(keyID == key.deviceKeyID)
                // Registering again keeps the same key.
                #expect(try await client.registerDeviceKey(in: store) == keyID)
                return guest
            }
            let attributes = try FileManager.default.attributesOfItem(atPath: store.path)
            #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
            try await edge.withClient(transport) { reinstalled in
                let session = try #require(try await reinstalled.signInWithDeviceKey(from: store))
                #expect(session.uid == guest.uid && session.isAnonymous)
                #expect(try await reinstalled.get("notes", "n")?.text == "kept")
                let used = try await reinstalled.quota().counters.first { $0.counter == "documents" }?.used
                #expect(used == 1)
            }
            // Without a key there is nothing to sign in with.
            let empty = try keyStore()
            let none = try await edge.withClient(transport) { other in
                try await other.signInWithDeviceKey(from: empty)
            }
            #expect(none == nil)
        }
    }

    @Test(
        "A member is refused; another guest cannot take a registered key; deleting the guest ends the key",
        arguments: GatewayTransportKind.allCases
    )
    func refusals(transport: GatewayTransportKind) async throws {
        let store = try keyStore()
        let memberStore = try keyStore()
        try await withHTTPEdge { edge in
            try await edge.withClient(transport) { member in
                _ = try await member.signInAsGuest()
                _ = try await member.link(email: uniqueEmail("dk-member"), password: strongPassword)
                await expectError(.wrongAccountKind) { try await member.registerDeviceKey(in: memberStore) }
            }
            try await edge.withClient(transport) { first in
                _ = try await first.signInAsGuest()
                try await first.registerDeviceKey(in: store)
                _ = try await edge.withClient(transport) { second in
                    _ = try await second.signInAsGuest()
                    await expectError(.credentialAlreadyInUse) { try await second.registerDeviceKey(in: store) }
                }
                _ = try await first.signOut()
            }
            _ = try await edge.withClient(transport) { reinstalled in
                await expectError(.invalidCredentials) { try await reinstalled.signInWithDeviceKey(from: store) }
            }
        }
    }
}
