import FoyerAPI
import FoyerClient
import Synchronization

/// The session file of one command: loaded at the start, written whenever the client adopts a new session (a
/// refresh spends the old refresh token, so the new one must reach the disk even if the command then fails).
final class SessionFile: Sendable {
    let path: String?
    private struct State {
        var stored: StoredSession
        var saveError: FoyerError?
    }
    private let state: Mutex<State>

    init(path: String?) throws(FoyerError) {
        self.path = path
        let stored =
            try path.flatMap { (path) throws(FoyerError) in try StoredSession.load(from: path) } ?? StoredSession()
        state = Mutex(State(stored: stored))
    }

    var stored: StoredSession { state.withLock { $0.stored } }

    /// The first failure to write the file, if any.
    var saveError: FoyerError? { state.withLock { $0.saveError } }

    /// Changes the stored session and writes it (deleting the file once it holds nothing).
    func update(_ change: (inout StoredSession) -> Void) {
        state.withLock { state in
            change(&state.stored)
            guard let path else { return }
            do throws(FoyerError) {
                if state.stored.session == nil, state.stored.pendingEmailLink == nil {
                    try StoredSession.remove(at: path)
                } else {
                    try state.stored.save(to: path)
                }
            } catch {
                if state.saveError == nil { state.saveError = error }
            }
        }
    }

    /// Fails if a write failed.
    func checkSaved() throws(FoyerError) {
        if let error = saveError { throw error }
    }
}

/// What a command that talks to the gateway works with: the options, the session file and a client.
struct CommandContext {
    let options: GlobalOptions
    let file: SessionFile
    let client: FoyerClient

    static func make(_ options: GlobalOptions) throws(FoyerError) -> CommandContext {
        let file = try SessionFile(path: options.sessionPath)
        let configuration = try options.clientConfiguration(stored: file.stored)
        let address = configuration.address
        let client = FoyerClient(
            configuration: configuration,
            session: file.stored.sessionTokens,
            logger: options.logger("foyer.cli.client")
        ) { [file] session in
            file.update { stored in
                stored.sessionTokens = session
                stored.gateway = address
            }
        }
        return CommandContext(options: options, file: file, client: client)
    }

    /// Runs `body` with a context, closing the client afterwards and failing if the session file could not be
    /// written.
    static func run(
        _ options: GlobalOptions,
        _ body: (CommandContext) async throws(FoyerError) -> JSONValue
    )
        async throws(FoyerError) -> JSONValue
    {
        let context = try make(options)
        let result: Result<JSONValue, FoyerError>
        do throws(FoyerError) {
            result = .success(try await body(context))
        } catch {
            result = .failure(error)
        }
        await context.client.shutdown()
        try context.file.checkSaved()
        return try result.get()
    }

    /// The session, or `not-signed-in` naming where one comes from.
    func requireSession() throws(FoyerError) -> SessionTokens {
        guard let session = file.stored.sessionTokens else {
            let where_ = file.path.map { "the session file \($0) holds no session" } ?? "no --session file given"
            throw .notSignedIn("\(where_); run `foyer guest` or `foyer sign-in` first")
        }
        return session
    }
}
