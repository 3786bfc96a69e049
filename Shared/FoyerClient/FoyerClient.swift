public import Foundation
public import FoyerAPI
import FoyerRPC
import FoyerWire
public import Logging

/// The client of a Foyer gateway, for apps and app servers.
///
/// It holds the session (`SessionTokens`), keeps its access token fresh (refreshed before a call when less than
/// `refreshMargin` remains, and once more if the gateway still answers `token-expired`), gives every call that
/// changes something an idempotency key or operation id so the RPC runtime's retries are safe, and throws
/// `FoyerError` with the details an app needs (quota left, the conflicting account's ticket, retry-after).
///
/// ```swift
/// let client = FoyerClient(configuration: FoyerClientConfiguration(host: "127.0.0.1", port: 7400))
/// // or the HTTP edge: FoyerClientConfiguration(httpBaseURL: URL(string: "https://api.example.com")!)
/// try await client.signInAsGuest()
/// try await client.put("notes", "first", "hello")
/// let result = try await client.link(.password(email: "a@example.com", password: "…"), onConflict: .merge)
/// await client.shutdown()
/// ```
///
/// Calls may run concurrently; a refresh is made once for all the calls that need it. `sessionDidChange` is
/// called with every session the client adopts (sign-in, refresh, link, merge) and with `nil` when the session
/// ends (sign-out, account deleted), so an app can keep it in its keychain; a refreshed session must be stored,
/// because the refresh token it replaces is spent.
public actor FoyerClient {
    public nonisolated let configuration: FoyerClientConfiguration
    /// The binary protocol, or the HTTP edge when the configuration names one.
    private nonisolated let transport: any GatewayTransport
    private nonisolated let logger: Logger
    private let sessionDidChange: (@Sendable (SessionTokens?) -> Void)?
    private var current: SessionTokens?
    /// While a refresh is in flight: the calls waiting for its result.
    private var refreshWaiters: [CheckedContinuation<Result<SessionTokens, FoyerError>, Never>]?

    /// - Parameters:
    ///   - session: a session restored from storage, if any.
    ///   - sessionDidChange: called (on the client's executor, so keep it short) when the client adopts a new
    ///     session or the session ends.
    public init(
        configuration: FoyerClientConfiguration = FoyerClientConfiguration(),
        session: SessionTokens? = nil,
        logger: Logger = Logger(label: "foyer.client"),
        sessionDidChange: (@Sendable (SessionTokens?) -> Void)? = nil
    ) {
        self.configuration = configuration
        self.logger = logger
        if let url = configuration.httpBaseURL {
            self.transport = HTTPGatewayTransport(configuration: configuration, baseURL: url, logger: logger)
        } else {
            self.transport = BinaryGatewayTransport(configuration: configuration, logger: logger)
        }
        self.current = session
        self.sessionDidChange = sessionDidChange
    }

    /// A client for another session over `other`'s connections, so a load generator can act as many users over a
    /// few connections. The connections stay `other`'s: shut down `other` (once every client sharing them is done),
    /// never this one.
    public init(
        sharingConnectionsOf other: FoyerClient,
        session: SessionTokens? = nil,
        sessionDidChange: (@Sendable (SessionTokens?) -> Void)? = nil
    ) {
        self.configuration = other.configuration
        self.logger = other.logger
        self.transport = other.transport
        self.current = session
        self.sessionDidChange = sessionDidChange
    }

    /// Closes the connections. Calls made afterwards fail `unavailable`.
    public func shutdown() async {
        await transport.shutdown()
    }

    // MARK: Session

    /// The current session, if signed in.
    public var session: SessionTokens? { current }

    /// The signed-in user's uid.
    public var uid: String? { current?.uid }

    /// Whether the signed-in user is a guest (`nil` when signed out).
    public var isAnonymous: Bool? { current?.isAnonymous }

    /// Replaces the session (one restored from storage, or `nil` to forget it locally without telling the
    /// server). `sessionDidChange` is not called.
    public func setSession(_ session: SessionTokens?) {
        current = session
    }

    /// An access token with at least `refreshMargin` left, refreshing the session first if needed (for an app
    /// that sends the token to its own backend).
    public func accessToken() async throws(FoyerError) -> String {
        guard let session = current else { throw .notSignedIn("no session: sign in first") }
        let expiresAt = Date(milliseconds: session.accessTokenExpiresAtMilliseconds)
        let margin = Double(configuration.refreshMargin.components.seconds)
        if expiresAt.timeIntervalSince(configuration.now()) > margin { return session.accessToken }
        logger.debug("access token near expiry; refreshing", metadata: ["user.uid": "\(session.uid)"])
        return try await refresh(replacing: session).accessToken
    }

    /// Rotates the refresh token into a new session pair now.
    @discardableResult
    public func refreshSession() async throws(FoyerError) -> SessionTokens {
        guard let session = current else { throw .notSignedIn("no session: sign in first") }
        return try await refresh(replacing: session)
    }

    /// Refreshes `stale` once for every caller that asks while a refresh is in flight; a caller whose token was
    /// already replaced gets the new session without another refresh (refresh tokens are single use).
    private func refresh(replacing stale: SessionTokens) async throws(FoyerError) -> SessionTokens {
        if let current, current.sessionID == stale.sessionID, current.accessToken != stale.accessToken {
            return current
        }
        if refreshWaiters != nil {
            let result = await withCheckedContinuation { continuation in
                refreshWaiters?.append(continuation)
            }
            return try result.get()
        }
        refreshWaiters = []
        let result: Result<SessionTokens, FoyerError>
        do throws(FoyerError) {
            result = .success(
                try await call(GatewayMethods.refresh, RefreshSessionRequest(refreshToken: stale.refreshToken))
            )
        } catch {
            result = .failure(error)
        }
        let waiters = refreshWaiters ?? []
        refreshWaiters = nil
        if case .success(let fresh) = result, current?.sessionID == stale.sessionID {
            adopt(fresh)
        }
        for waiter in waiters { waiter.resume(returning: result) }
        return try result.get()
    }

    /// Makes `session` the current one and tells the owner.
    func adopt(_ session: SessionTokens?) {
        current = session
        sessionDidChange?(session)
    }

    // MARK: Calls

    /// Calls the gateway through the transport, every failure a `FoyerError`.
    func call<Request, Response>(
        _ method: RPCMethod<Request, Response>,
        _ request: Request
    ) async throws(FoyerError) -> Response {
        try await transport.call(method, request)
    }

    /// Calls the gateway as the signed-in user: with a fresh access token, and once more after a refresh if the
    /// gateway answers `token-expired` (a clock ahead of ours, or a token that expired on the way).
    func authorized<Request, Response>(
        _ method: RPCMethod<Request, Response>,
        _ request: (_ accessToken: String) -> Request
    ) async throws(FoyerError) -> Response {
        let token = try await accessToken()
        do throws(FoyerError) {
            return try await call(method, request(token))
        } catch let error where error == .tokenExpired {
            guard let session = current, session.accessToken == token else {
                return try await call(method, request(try await accessToken()))
            }
            logger.debug(
                "gateway says the access token expired; refreshing once",
                metadata: ["user.uid": "\(session.uid)"]
            )
            let fresh = try await refresh(replacing: session)
            return try await call(method, request(fresh.accessToken))
        }
    }
}

/// Runs `body` with a client, shutting it down afterwards.
public func withFoyerClient<T: Sendable>(
    configuration: FoyerClientConfiguration = FoyerClientConfiguration(),
    session: SessionTokens? = nil,
    logger: Logger = Logger(label: "foyer.client"),
    sessionDidChange: (@Sendable (SessionTokens?) -> Void)? = nil,
    _ body: (FoyerClient) async throws -> T
) async throws -> T {
    let client = FoyerClient(
        configuration: configuration,
        session: session,
        logger: logger,
        sessionDidChange: sessionDidChange
    )
    do {
        let result = try await body(client)
        await client.shutdown()
        return result
    } catch {
        await client.shutdown()
        throw error
    }
}

extension SessionTokens {
    /// When the access token expires.
    public var accessTokenExpiresAt: Date { Date(milliseconds: accessTokenExpiresAtMilliseconds) }
    /// When the refresh token expires (if unused; using it extends the session up to its absolute lifetime).
    public var refreshTokenExpiresAt: Date { Date(milliseconds: refreshTokenExpiresAtMilliseconds) }
}

extension ConflictDetails {
    /// When the ticket stops working; after it, present the credential again.
    public var ticketExpiresAt: Date { Date(milliseconds: ticketExpiresAtMilliseconds) }
}
