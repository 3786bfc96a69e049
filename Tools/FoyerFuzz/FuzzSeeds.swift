import Foundation
import FoyerAPI
import FoyerWire
import NIOCore

/// A starting corpus: one valid body of every type in `GatewayBodies`, behind the byte that picks it, so the fuzzer
/// starts inside every decoder instead of having to find, say, a 32-byte verifier challenge on its own.
enum FuzzSeeds {
    static let accessToken = "eyJhbGciOiJFZERTQSJ9.eyJzdWIiOiJ1MSJ9.c2ln"
    static let operationID = "3f2504e0-4f89-11d3-9a0c-0305e82c3301"

    /// Writes `seed-<type>` files into `directory` (created if missing; files of the same name are replaced).
    static func write(into directory: String) throws {
        let url = URL(fileURLWithPath: directory, isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        let seeded = Set(bodies.map(\.0))
        precondition(
            seeded == Set(GatewayBodies.checks.map(\.name)),
            "a gateway body type has no seed, or a seed no type"
        )
        for (name, body) in bodies {
            guard let index = GatewayBodies.checks.firstIndex(where: { $0.name == name }) else {
                preconditionFailure("no gateway check named \(name)")
            }
            var input = ByteBuffer(integer: UInt8(index))
            input.writeImmutableBuffer(body)
            try Data(input.readableBytesView).write(to: url.appendingPathComponent("seed-\(name)"))
        }
    }

    private static func seed<M: WireMessage>(_ message: M) -> (String, ByteBuffer) {
        ("\(M.self)", message.encoded())
    }

    private static let session = SessionTokens(
        uid: "u1",
        isAnonymous: true,
        sessionID: "s1",
        accessToken: accessToken,
        accessTokenExpiresAtMilliseconds: 1_790_000_000_000,
        refreshToken: "cmVmcmVzaA",
        refreshTokenExpiresAtMilliseconds: 1_800_000_000_000
    )
    private static let usage = QuotaUsageResponse(
        plan: "guest",
        counters: [CounterUsage(counter: "documents", limit: 20, used: 3)],
        features: [FeatureFlag(feature: "import", enabled: false)]
    )
    private static let document = StoredDocument(
        collection: "notes",
        key: "n1",
        value: ByteBuffer(string: "note"),
        version: 1,
        updatedAtMicroseconds: 1_790_000_000_000_000
    )
    private static let user = UserInfo(
        uid: "u1",
        isAnonymous: false,
        state: AccountState(uid: "u1", kind: .merging, mergeInto: "u2", operationID: "o", sinceMilliseconds: 1),
        createdAtMilliseconds: 1,
        lastActivityAtMilliseconds: 2,
        email: "a@b.c",
        emailVerified: true,
        hasPassword: true,
        providers: [LinkedIdentity(provider: .google, subject: "s", email: "a@b.c", emailTrusted: true)]
    )

    private static var bodies: [(String, ByteBuffer)] {
        [
            seed(AuthenticatedRequest(accessToken: accessToken)),
            seed(OperationRequest(accessToken: accessToken, operationID: operationID)),
            seed(GuestSignInRequest(idempotencyKey: operationID, loadTestSource: "192.0.2.1")),
            seed(SignInRequest(credential: .idToken(provider: .apple, idToken: "h.p.s", rawNonce: "n"))),
            seed(RefreshSessionRequest(refreshToken: "cmVmcmVzaA")),
            seed(
                EmailLinkStartRequest(
                    purpose: .link,
                    email: "a@b.c",
                    accessToken: accessToken,
                    verifierChallenge: Array(repeating: 7, count: IdentityLimits.verifierChallengeByteCount)
                )
            ),
            seed(
                LinkRequest(
                    accessToken: accessToken,
                    credential: .emailLink(token: "dG9rZW4", verifier: [1, 2, 3]),
                    onConflict: .merge,
                    mergePolicy: .keepBoth,
                    operationID: operationID
                )
            ),
            seed(
                ResolveConflictRequest(
                    accessToken: accessToken,
                    ticket: "dGlja2V0",
                    choice: .discard,
                    mergePolicy: .keepGuest,
                    operationID: operationID
                )
            ),
            seed(
                GatewayPutRequest(
                    accessToken: accessToken,
                    collection: "notes",
                    key: "n1",
                    value: ByteBuffer(string: "note"),
                    expectedVersion: 3,
                    idempotencyKey: operationID
                )
            ),
            seed(GatewayDocumentRequest(accessToken: accessToken, collection: "notes", key: "n1")),
            seed(
                GatewayListRequest(
                    accessToken: accessToken,
                    collection: "notes",
                    cursor: ByteBuffer(string: "n1"),
                    pageSize: 100
                )
            ),
            seed(GatewayExportRequest(accessToken: accessToken, cursor: ByteBuffer(string: "c"), pageSize: 100)),
            seed(
                GatewayImportRequest(
                    accessToken: accessToken,
                    collection: "notes",
                    documents: [.init(key: "a", value: ByteBuffer(string: "1")), .init(key: "b", value: ByteBuffer())],
                    idempotencyKey: operationID
                )
            ),
            seed(Empty()),
            seed(session),
            seed(SignOutResponse(accountDeleted: true)),
            seed(MeResponse(user: user, usage: usage)),
            seed(usage),
            seed(
                LinkResult.merged(
                    session,
                    MergeReport(
                        moved: 1,
                        conflicts: 1,
                        keptBoth: 1,
                        listedConflicts: [.init(collection: "notes", key: "k", resolution: .keptBoth, derivedKey: "d")]
                    )
                )
            ),
            seed(
                LinkResult.conflict(ConflictDetails(otherUID: "u2", ticket: "dGlja2V0", ticketExpiresAtMilliseconds: 1))
            ),
            seed(DeletionReport(documentsDeleted: 300)),
            seed(PutDocumentResponse(version: 2, updatedAtMicroseconds: -1)),
            seed(GetDocumentResponse(document: document)),
            seed(DocumentPage(documents: [document, document], nextCursor: ByteBuffer(string: "n2"))),
            seed(DeleteDocumentResponse(deleted: true)),
            seed(ImportResponse(written: 2)),
            seed(JWKSResponse(json: Array(#"{"keys":[]}"#.utf8))),
            seed(ConflictDetails(otherUID: "u2", ticket: "dGlja2V0", ticketExpiresAtMilliseconds: 1)),
            seed(QuotaExceededDetails(usage: CounterUsage(counter: "documents", limit: 20, used: 20), requested: 1)),
        ]
    }
}
