import FoyerAPI
import FoyerClient

/// An iteration ended early: a request failed (and was counted).
struct LoadIterationFailure: Error {}

/// One virtual user: makes its clients over its share of the connections and times every request.
struct VirtualUser: Sendable {
    let index: Int
    let run: LoadRun

    /// A client of its own session over this user's connection.
    func client(session: SessionTokens? = nil) -> FoyerClient {
        FoyerClient(sharingConnectionsOf: run.connections[index % run.connections.count], session: session)
    }

    /// Makes one request, timed and recorded.
    ///
    /// - Returns: the answer, or `nil` when the request was refused with one of `expecting` (an outcome the
    ///   scenario counts on, not an error).
    /// - Throws: `LoadIterationFailure` after any other error, which is counted.
    @discardableResult
    func step<T>(
        _ operation: LoadOperation,
        expecting: Set<FoyerError> = [],
        _ body: () async throws(FoyerError) -> T
    ) async throws(LoadIterationFailure) -> T? {
        await run.beginRequest()
        let started = ContinuousClock.now
        let result: Result<T, FoyerError>
        do throws(FoyerError) {
            result = .success(try await body())
        } catch {
            result = .failure(error)
        }
        let latency = ContinuousClock.now - started
        switch result {
        case .success(let value):
            run.record(operation, error: nil, expecting: expecting, latency: latency)
            return value
        case .failure(let error):
            run.record(operation, error: error, expecting: expecting, latency: latency)
            guard expecting.contains(error) else { throw LoadIterationFailure() }
            return nil
        }
    }

    /// Signs a new guest in on `client`, under a test source address of its own.
    func signInGuest(_ client: FoyerClient) async throws(LoadIterationFailure) {
        let source = LoadSources.address(run.nextAccountNumber())
        try await step(.guestSignIn) { () async throws(FoyerError) in
            try await client.signInAsGuest(loadTestSource: source)
        }
    }

    /// An email address no other account of any run uses, and this run's password.
    func newCredentials() -> (email: String, password: String) {
        ("load-\(run.runID)-\(run.nextAccountNumber())@example.com", "foyer load \(run.runID) passphrase")
    }

    /// Signs a new guest in and runs `body` with its client. When `body` fails, deletes the account it leaves
    /// (best effort, not recorded) if that is still a guest, or whatever it is when `always`.
    @discardableResult
    func withNewGuest<T>(
        discardingAlways always: Bool = false,
        _ body: (FoyerClient) async throws(LoadIterationFailure) -> T
    ) async throws(LoadIterationFailure) -> T {
        let client = client()
        try await signInGuest(client)
        do {
            return try await body(client)
        } catch {
            await discard(client, always: always)
            throw error
        }
    }

    /// Makes a member: a guest that links a new email and password. Returns its client and credentials.
    func makeMember() async throws(LoadIterationFailure) -> (client: FoyerClient, email: String, password: String) {
        try await withNewGuest { (client) async throws(LoadIterationFailure) in
            let (email, password) = newCredentials()
            try await step(.link) { () async throws(FoyerError) in
                try await client.link(email: email, password: password)
            }
            return (client, email, password)
        }
    }

    /// Deletes a member `makeMember` made, signing in again first: deleting an account needs a sign-in within the last
    /// five minutes (the step-up), and the member of a long run signed in when the run began.
    func deleteMember(_ member: (client: FoyerClient, email: String, password: String)) async {
        _ = try? await step(.signIn) { () async throws(FoyerError) in
            try await member.client.signIn(email: member.email, password: member.password)
        }
        _ = try? await step(.deleteAccount) { () async throws(FoyerError) in try await member.client.deleteAccount() }
    }

    /// Deletes the account `client` is signed in to, when it is a guest or `always` (best effort, not recorded).
    private func discard(_ client: FoyerClient, always: Bool = false) async {
        guard let anonymous = await client.isAnonymous, anonymous || always else { return }
        _ = try? await client.deleteAccount()
    }
}
