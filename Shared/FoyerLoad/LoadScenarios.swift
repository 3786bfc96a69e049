import FoyerAPI
import FoyerClient

/// A scenario's steps for one virtual user: set up once, iterate until the run's bound, tear down. One script per
/// virtual user, used by that user's task only.
protocol LoadScript: AnyObject {
    /// Before the first iteration (make the user's account). A failure leaves the user idle.
    func setUp() async throws(LoadIterationFailure)
    /// One iteration; on failure the script cleans up after itself before it throws.
    func iterate() async throws(LoadIterationFailure)
    /// After the last iteration (delete the user's account).
    func tearDown() async
}

extension LoadScript {
    func setUp() async throws(LoadIterationFailure) {}
    func tearDown() async {}
}

extension LoadScenario {
    /// The script of this scenario for `user`.
    func script(for user: VirtualUser) -> any LoadScript {
        switch self {
        case .guestSignup: GuestSignupScript(user)
        case .guestJourney: GuestJourneyScript(user)
        case .merge: MergeScript(user)
        case .readWrite: ReadWriteScript(user)
        case .refresh: RefreshScript(user)
        }
    }
}

/// The collection the load scenarios write to.
let loadCollection = "load"

/// Guest sign-in, then sign-out (deleting the guest).
final class GuestSignupScript: LoadScript {
    private let user: VirtualUser
    init(_ user: VirtualUser) { self.user = user }

    func iterate() async throws(LoadIterationFailure) {
        try await user.withNewGuest { (client) async throws(LoadIterationFailure) in
            try await user.step(.signOut) { () async throws(FoyerError) in try await client.signOut() }
        }
    }
}

/// Guest sign-in; writes until the quota refuses; link; one more write as a member; delete the account.
final class GuestJourneyScript: LoadScript {
    /// Writes a guest makes at most while waiting for the quota to refuse (far above any guest plan's limit).
    static let writesMax = 1000

    private let user: VirtualUser
    init(_ user: VirtualUser) { self.user = user }

    func iterate() async throws(LoadIterationFailure) {
        // Once linked the account is a member of this run's own: delete it too if the journey breaks off.
        try await user.withNewGuest(discardingAlways: true) { (client) async throws(LoadIterationFailure) in
            try await journey(client)
        }
    }

    private func journey(_ client: FoyerClient) async throws(LoadIterationFailure) {
        for index in 1...Self.writesMax {
            let written = try await user.step(.put, expecting: [.quotaExceeded]) { () async throws(FoyerError) in
                try await client.put(loadCollection, "d\(index)", "journey document \(index)")
            }
            if written == nil { break }
        }
        let (email, password) = user.newCredentials()
        try await user.step(.link) { () async throws(FoyerError) in
            try await client.link(email: email, password: password)
        }
        try await user.step(.put) { () async throws(FoyerError) in
            try await client.put(loadCollection, "member", "written as a member")
        }
        try await user.step(.deleteAccount) { () async throws(FoyerError) in try await client.deleteAccount() }
    }
}

/// Guests with some documents link to the user's existing account and are merged into it.
final class MergeScript: LoadScript {
    private let user: VirtualUser
    private var member: (client: FoyerClient, email: String, password: String)?
    init(_ user: VirtualUser) { self.user = user }

    func setUp() async throws(LoadIterationFailure) {
        member = try await user.makeMember()
    }

    func iterate() async throws(LoadIterationFailure) {
        guard let member else { throw LoadIterationFailure() }
        try await user.withNewGuest { (guest) async throws(LoadIterationFailure) in
            for index in 1...user.run.plan.documents {
                try await user.step(.put) { () async throws(FoyerError) in
                    try await guest.put(loadCollection, "m\(index)", "guest document \(index)")
                }
            }
            try await user.step(.link) { () async throws(FoyerError) in
                try await guest.link(email: member.email, password: member.password, onConflict: .merge)
            }
        }
    }

    func tearDown() async {
        guard let member else { return }
        await user.deleteMember(member)
    }
}

/// A member writes a document and reads it back.
final class ReadWriteScript: LoadScript {
    /// Keys the member cycles through, so its documents stay few.
    static let keyCount = 100

    private let user: VirtualUser
    private var member: (client: FoyerClient, email: String, password: String)?
    private var iteration = 0
    init(_ user: VirtualUser) { self.user = user }

    func setUp() async throws(LoadIterationFailure) {
        member = try await user.makeMember()
    }

    func iterate() async throws(LoadIterationFailure) {
        guard let member = member?.client else { throw LoadIterationFailure() }
        iteration += 1
        let key = "k\(iteration % Self.keyCount)"
        let text = "read-write document, iteration \(iteration)"
        try await user.step(.put) { () async throws(FoyerError) in try await member.put(loadCollection, key, text) }
        try await user.step(.get) { () async throws(FoyerError) in try await member.get(loadCollection, key) }
    }

    func tearDown() async {
        guard let member else { return }
        await user.deleteMember(member)
    }
}

/// A guest refreshes its session.
final class RefreshScript: LoadScript {
    private let user: VirtualUser
    private var guest: FoyerClient?
    init(_ user: VirtualUser) { self.user = user }

    func setUp() async throws(LoadIterationFailure) {
        let client = user.client()
        guest = client
        try await user.signInGuest(client)
    }

    func iterate() async throws(LoadIterationFailure) {
        guard let guest else { throw LoadIterationFailure() }
        try await user.step(.refresh) { () async throws(FoyerError) in try await guest.refreshSession() }
    }

    func tearDown() async {
        guard let guest, await guest.session != nil else { return }
        _ = try? await user.step(.signOut) { () async throws(FoyerError) in try await guest.signOut() }
    }
}
