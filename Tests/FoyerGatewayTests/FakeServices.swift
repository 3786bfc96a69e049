import Foundation
import FoyerAPI
import FoyerAccessTokens
import FoyerCrypto
import FoyerGateway
import FoyerRPC
import FoyerTestSupport
import FoyerWire
import Synchronization

/// One call a fake service answered.
struct RecordedCall: Sendable, CustomStringConvertible {
    /// The fake's service name (`identity`, `guest-quota`, `user-data`, `cleanup`).
    let service: String
    /// The contract's method name (`service.method`, as `IdentityMethods` and the others name them).
    let method: String
    /// The decoded request.
    let request: any Sendable

    var description: String { method }
}

/// The calls the fakes of one cluster answered, in the order they arrived (one log for all four, so a test sees
/// the order across services).
final class CallLog: Sendable {
    private let calls = Mutex<[RecordedCall]>([])

    func append(_ call: RecordedCall) {
        calls.withLock { $0.append(call) }
    }

    var all: [RecordedCall] { calls.withLock { $0 } }

    /// The method name of every call, in order.
    var names: [String] { all.map(\.method) }

    /// The requests of `method` the fakes got, in order.
    func requests<Request, Response>(_ method: RPCMethod<Request, Response>) -> [Request] {
        all.filter { $0.method == method.name }.compactMap { $0.request as? Request }
    }
}

/// A fake of one internal service: an `RPCRouter` whose handlers the test sets before the cluster starts. Every
/// handler set with `handle` records its calls in the cluster's log; a method with no handler is answered by the
/// router as unknown, as a real server answers a method it does not host.
struct FakeService: Sendable {
    let name: String
    let log: CallLog
    fileprivate(set) var router = RPCRouter()

    /// Answers `method` with `handler` (which may throw an `RPCError` to answer with that status).
    mutating func handle<Request, Response>(
        _ method: RPCMethod<Request, Response>,
        _ handler: @escaping @Sendable (Request) async throws -> Response
    ) {
        let service = name
        let log = log
        router.register(method) { request, _ in
            log.append(RecordedCall(service: service, method: method.name, request: request))
            return try await handler(request)
        }
    }
}

/// Access tokens as identity signs them by default (ES256, `typ` `at+jwt`, the gateway's default issuer and
/// audience), with the key set a fake identity publishes so the gateway verifies them for real.
struct FakeTokens: Sendable {
    let signer = JWTSigner(signingKey: .p256(P256PrivateKey()), keyID: "fake-key-1", type: AccessTokenClaims.type)

    /// The JWKS identity's `getJWKS` answers.
    func jwks() throws -> JWKSResponse {
        JWKSResponse(json: try JWKSet(keys: [signer.jwk]).jsonBytes())
    }

    /// A token for `uid`'s session `sessionID`, valid for 15 minutes from now.
    func accessToken(uid: String, sessionID: String, isAnonymous: Bool = true) throws -> String {
        let now = Int64(Date().timeIntervalSince1970.rounded(.down))
        return try signer.sign(
            claims: AccessTokenClaims(
                subject: uid,
                isAnonymous: isAnonymous,
                sessionID: sessionID,
                issuer: "http://127.0.0.1:7480",
                audience: "foyer-app",
                issuedAt: now,
                expiresAt: now + 15 * 60
            )
        )
    }
}

/// In-process fakes of the four services the gateway calls, for testing the real gateway against them.
///
/// Set handlers on `identity`, `guestQuota`, `userData` and `cleanup`, then `withGateway` starts each fake on a
/// free port (cluster-secret authenticated, as deployed), the real gateway pointed at them, and hands the test a
/// client of the gateway. identity already answers `getJWKS` with `tokens`' key (not recorded: the gateway's key
/// cache decides when it fetches).
struct FakeServices: Sendable {
    let log = CallLog()
    let tokens = FakeTokens()
    var identity: FakeService
    var guestQuota: FakeService
    var userData: FakeService
    var cleanup: FakeService

    init() throws {
        identity = FakeService(name: "identity", log: log)
        guestQuota = FakeService(name: "guest-quota", log: log)
        userData = FakeService(name: "user-data", log: log)
        cleanup = FakeService(name: "cleanup", log: log)
        let jwks = try tokens.jwks()
        identity.router.register(IdentityMethods.getJWKS) { _, _ in jwks }
    }

    /// Runs `body` with a client of a gateway (no cluster secret, one attempt per call so a test sees the gateway's
    /// own answer) in front of the fakes, then stops everything.
    func withGateway<T: Sendable>(
        adjust: (inout GatewayConfiguration) -> Void = { _ in },
        _ body: (RPCClient) async throws -> T
    ) async throws -> T {
        let fakes = [identity, guestQuota, userData, cleanup]
        return try await withThrowingTaskGroup(of: Void.self) { group in
            defer { group.cancelAll() }
            var ports: [String: Int] = [:]
            for fake in fakes {
                let server = RPCServer(
                    configuration: testServerConfiguration(service: fake.name),
                    router: fake.router,
                    logger: TestLogging.logger("foyer.test.fake.\(fake.name)")
                )
                group.addTask { try await server.run() }
                ports[fake.name] = try await server.boundAddress().port!
            }
            var configuration = GatewayConfiguration(
                identity: Self.internalClient("identity", port: ports["identity"]!),
                guestQuota: Self.internalClient("guest-quota", port: ports["guest-quota"]!),
                userData: Self.internalClient("user-data", port: ports["user-data"]!),
                cleanup: Self.internalClient("cleanup", port: ports["cleanup"]!)
            )
            adjust(&configuration)
            let gateway = GatewayService.make(
                configuration: configuration,
                server: RPCServerConfiguration(serviceName: "gateway", clusterSecret: nil),
                logger: TestLogging.logger("foyer.test.gateway")
            )
            group.addTask { try await gateway.server.run() }
            let port = try await gateway.server.boundAddress().port!
            do {
                let result = try await withTestClient(
                    port: port,
                    service: "gateway",
                    secret: nil,
                    adjust: { $0.maxAttempts = 1 },
                    body
                )
                for client in gateway.clients { await client.shutdown() }
                return result
            } catch {
                for client in gateway.clients { await client.shutdown() }
                throw error
            }
        }
    }

    /// The gateway's client of an internal service, as the executable makes it.
    private static func internalClient(_ service: String, port: Int) -> RPCClientConfiguration {
        RPCClientConfiguration(
            host: "127.0.0.1",
            port: port,
            serviceName: service,
            peerName: "gateway",
            clusterSecret: testClusterSecret
        )
    }
}
