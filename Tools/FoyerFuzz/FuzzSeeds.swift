import Foundation
import FoyerAPI
import FoyerCrypto
import FoyerLZ4
import FoyerWire
import NIOCore

/// A starting corpus: one valid body of every type in `GatewayBodies`, behind the byte that picks it, so the fuzzer
/// starts inside every decoder instead of having to find, say, a 32-byte verifier challenge on its own.
/// The starting corpus of every target (`foyer-fuzz seed DIR` writes it into `DIR/<target>/`): valid inputs, so the
/// fuzzer starts inside every decoder instead of having to find, say, a 32-byte verifier challenge on its own.
///
/// Service bodies come from one sample value per message type (`samples`), behind the byte that picks the type;
/// a type without a sample gets its selector byte alone.
enum FuzzSeeds {
    static let accessToken = "eyJhbGciOiJFZERTQSJ9.eyJzdWIiOiJ1MSJ9.c2ln"
    static let operationID = "3f2504e0-4f89-11d3-9a0c-0305e82c3301"

    /// Writes `seed-<name>` files into `directory/<target>/` for every target (directories created if missing,
    /// files of the same name replaced).
    static func write(into directory: String) throws {
        for target in FuzzTarget.all {
            let url = URL(fileURLWithPath: directory, isDirectory: true).appendingPathComponent(target.name)
            try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
            for seed in target.seeds() {
                try Data(seed.bytes).write(to: url.appendingPathComponent("seed-\(seed.name)"))
            }
        }
    }

    /// One seed per type of `bodies`: the selector byte, then the sample body of that type (or nothing).
    static func serviceSeeds(_ bodies: ServiceBodies) -> [(name: String, bytes: [UInt8])] {
        let samples = Dictionary(samples.map { ($0.0, Array($0.1.readableBytesView)) }, uniquingKeysWith: { a, _ in a })
        var seen: Set<String> = []
        return bodies.checks.enumerated().compactMap { index, check in
            guard seen.insert(check.name).inserted else { return nil }
            return (check.name, [UInt8(index)] + (samples[check.name] ?? []))
        }
    }

    /// Frames as a client sends them (preface, then requests, one idempotent, one traced) and as a server answers
    /// (a HELLO_ACK with features first).
    static var frames: [(name: String, bytes: [UInt8])] {
        let encoder = FrameEncoder()
        var client = ByteBuffer()
        Preface.current.encode(into: &client)
        encoder.encode(data: .request(id: 1, method: 0x0001, body: ByteBuffer()), out: &client)
        encoder.encode(
            data: .request(id: 2, method: 0x0501, idempotent: true, body: ByteBuffer(string: "x")),
            out: &client
        )
        let trace = TraceContext(
            traceID: Array(1...16),
            parentID: Array(17...24),
            traceFlags: 1
        )
        encoder.encode(
            data: Frame.request(id: 4, method: 0x0502, body: ByteBuffer(string: "y"))
                .addingTraceContext(trace, allocator: ByteBufferAllocator()),
            out: &client
        )
        encoder.encode(data: .ping(id: 3), out: &client)
        var server = ByteBuffer()
        let ack = HelloAck(
            frameLengthMax: 1 << 20,
            maxInFlight: 512,
            compression: .lz4,
            compressionThreshold: 512,
            idleTimeoutMilliseconds: 300_000,
            serverName: "gateway",
            features: .traceContext
        )
        encoder.encode(data: Frame(header: FrameHeader(type: .helloAck), body: ack.encoded()), out: &server)
        let health = HealthStatus(service: "identity", state: .serving, uptimeMilliseconds: 1)
        encoder.encode(data: .response(id: 1, body: health.encoded()), out: &server)
        encoder.encode(data: .error(id: 2, status: .notFound, body: ByteBuffer()), out: &server)
        encoder.encode(data: .goAway(reason: .shutdown, body: ByteBuffer()), out: &server)
        return [("client", Array(client.readableBytesView)), ("server", Array(server.readableBytesView))]
    }

    static var proxyHeaders: [(name: String, bytes: [UInt8])] {
        let v2Body: [UInt8] = [192, 0, 2, 1, 192, 0, 2, 2, 0x1F, 0x90, 0x1C, 0xE8]
        return [
            ("v1-tcp4", Array("PROXY TCP4 192.0.2.1 192.0.2.2 56324 7400\r\nFOYR".utf8)),
            ("v1-tcp6", Array("PROXY TCP6 2001:db8::1 2001:db8::2 56324 7400\r\n".utf8)),
            ("v1-unknown", Array("PROXY UNKNOWN\r\n".utf8)),
            ("v2-tcp4", ProxyHeaderFuzzing.v2Signature + [0x21, 0x11, 0, UInt8(v2Body.count)] + v2Body),
            ("v2-local", ProxyHeaderFuzzing.v2Signature + [0x20, 0x00, 0, 0]),
        ]
    }

    static var tokens: [(name: String, bytes: [UInt8])] {
        let header = Base64URL.encode(Array(#"{"alg":"EdDSA","kid":"k1","typ":"JWT"}"#.utf8))
        let payload = Base64URL.encode(Array(#"{"sub":"u1","exp":1790000000,"iss":"foyer"}"#.utf8))
        return [
            ("eddsa", Array("\(header).\(payload).\(Base64URL.encode([UInt8](repeating: 7, count: 64)))".utf8)),
            ("short", Array(accessToken.utf8)),
        ]
    }

    static var keySets: [(name: String, bytes: [UInt8])] {
        [
            ("empty", Array(#"{"keys":[]}"#.utf8)),
            (
                "okp",
                Array(
                    #"{"keys":[{"kty":"OKP","crv":"Ed25519","kid":"k1","alg":"EdDSA","use":"sig","x":"11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo"}]}"#
                        .utf8
                )
            ),
            (
                "rsa",
                Array(
                    #"{"keys":[{"kty":"RSA","kid":"r1","alg":"RS256","n":"sXchDaQebHnPiGvyDOAT4saGEUetSyo9MKLOoWFsueri23bOdgWp4Dy1WlUzewbgBHod5pcM9H95GQRV3JDXboIRROSBigeC5yjU1hGzHHyXss8UDprecbAYxknTcQkhslANGRUZmdTOQ5qTRsLAt6BTYuyvVRdhS8exSZEy_c4gs_7svlJJQ4H9_NxsiIoLwAEk7-Q3UXERGYw_75IDrGA84-lA_-Ct4eTlXHBIY2EaV7t7LjJaynVJCpkv4LKjTTAumiGUIuQhrNhZLuF_RJLqHpM2kgWFLU7-VTdL1VbC2tejvcI2BlMkEpk1BzBZI0KQB0GaDWFLN-aEAw3vRw","e":"AQAB"}]}"#
                        .utf8
                )
            ),
        ]
    }

    static var jsonTexts: [(name: String, bytes: [UInt8])] {
        [
            (
                "object",
                Array(#"{"collection":"notes","key":"n1","value":{"a":[1,-2,3.5,1e300,null,true,"é\u00e9"]}}"#.utf8)
            ),
            ("numbers", Array("[0,-0,18446744073709551615,-9223372036854775808,0.1,2.5e-8]".utf8)),
            ("time", Array("2026-11-24T12:00:00.123Z".utf8)),
            ("time-fraction", Array("1970-01-01T00:00:00.123456789Z".utf8)),
        ]
    }

    static var lz4Blocks: [(name: String, bytes: [UInt8])] {
        let text = Array(String(repeating: "a note, another note, ", count: 20).utf8)
        let block = FoyerLZ4.LZ4.compress(text)
        let length = text.count - 1
        return [
            ("text", [UInt8(length & 0xFF), UInt8(length >> 8)] + block),
            ("literals", [4, 0] + [0x50] + Array("hello".utf8)),
        ]
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

    /// One sample body per message type, named by the type.
    private static var samples: [(String, ByteBuffer)] {
        [
            seed(AuthenticatedRequest(accessToken: accessToken)),
            seed(OperationRequest(accessToken: accessToken, operationID: operationID)),
            seed(GuestSignInRequest(idempotencyKey: operationID, loadTestSource: "192.0.2.1")),
            seed(
                CheckedGuestSignInRequest(
                    idempotencyKey: operationID,
                    proof: .proofOfWork(challenge: Array(repeating: 0x5A, count: 58), nonce: [0, 0, 0, 0, 0, 0, 0, 1])
                )
            ),
            seed(
                SignUpChallenge(challenge: Array(repeating: 0x5A, count: 58), difficulty: 18, expiresAtMilliseconds: 1)
            ),
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
                GatewayCounterRequest(
                    accessToken: accessToken,
                    counter: "transactions",
                    amount: 2,
                    idempotencyKey: operationID
                )
            ),
            seed(
                PasswordResetStartRequest(
                    email: "a@b.c",
                    verifierChallenge: Array(repeating: 7, count: IdentityLimits.verifierChallengeByteCount)
                )
            ),
            seed(PasswordResetCompleteRequest(token: "dG9rZW4", verifier: [1, 2, 3], newPassword: "a new password")),
            seed(
                PasswordChangeRequest(accessToken: accessToken, currentPassword: "old", newPassword: "a new password")
            ),
            seed(UnlinkRequest(accessToken: accessToken, credential: .google)),
            seed(
                EmailChangeStartRequest(
                    accessToken: accessToken,
                    currentPassword: nil,
                    newEmail: "new@b.c",
                    verifierChallenge: Array(repeating: 7, count: IdentityLimits.verifierChallengeByteCount)
                )
            ),
            seed(CompleteEmailChangeRequest(token: "dG9rZW4", verifier: [1, 2, 3])),
            seed(CompleteEmailCodeRequest(email: "a@b.c", code: "012345", uid: "u1")),
            seed(CreateDeviceKeyChallengeRequest(purpose: .signIn)),
            seed(
                DeviceKeyChallenge(
                    challenge: Array(repeating: 1, count: DeviceKey.challengeByteCount),
                    issuer: "https://foyer.example",
                    expiresAtMilliseconds: 1_700_000_300_000
                )
            ),
            seed(
                DeviceKeyRegisterRequest(
                    accessToken: accessToken,
                    publicKey: [4] + Array(repeating: 2, count: 64),
                    challenge: Array(repeating: 1, count: DeviceKey.challengeByteCount),
                    signature: Array(repeating: 3, count: DeviceKey.signatureByteCount)
                )
            ),
            seed(
                RegisterDeviceKeyRequest(
                    uid: "u1",
                    publicKey: [2] + Array(repeating: 2, count: 32),
                    challenge: Array(repeating: 1, count: DeviceKey.challengeByteCount),
                    signature: Array(repeating: 3, count: DeviceKey.signatureByteCount)
                )
            ),
            seed(DeviceKeyRegistered(keyID: Array(repeating: 5, count: DeviceKey.keyIDByteCount))),
            seed(
                DeviceKeySignInRequest(
                    keyID: Array(repeating: 5, count: DeviceKey.keyIDByteCount),
                    challenge: Array(repeating: 1, count: DeviceKey.challengeByteCount),
                    signature: Array(repeating: 3, count: DeviceKey.signatureByteCount)
                )
            ),
            seed(
                SignInRequest(
                    credential: .deviceKey(
                        keyID: Array(repeating: 5, count: DeviceKey.keyIDByteCount),
                        challenge: Array(repeating: 1, count: DeviceKey.challengeByteCount),
                        signature: Array(repeating: 3, count: DeviceKey.signatureByteCount)
                    )
                )
            ),
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
                ConsumeRequest(
                    uid: "u1",
                    charges: [
                        QuotaCharge(counter: "documents", amount: 1, idempotencyKey: "put-doc:k"),
                        QuotaCharge(counter: "bytes", amount: 4, idempotencyKey: "put-bytes:k"),
                    ]
                )
            ),
            seed(ConsumeResponse(usage: usage.counters, replayed: false, opened: true)),
            seed(
                PutOnceRequest(
                    uid: "u1",
                    collection: "notes",
                    key: "n1",
                    value: ByteBuffer(string: "note"),
                    base: PutBase(document),
                    op: "put-1",
                    attempt: "a-1",
                    requestDigest: [1, 2, 3]
                )
            ),
            seed(PutOnceResponse.found(PutBase(document))),
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
            seed(
                GuestQuotaStats(
                    liveGuests: 10,
                    liveGuestsMax: 1_000_000,
                    denialsLastHour: 3,
                    denialsByKind: [DenialCount(kind: "documents", count: 2), DenialCount(kind: "signup", count: 1)]
                )
            ),
        ]
    }
}
