public import FoyerClient

/// What each virtual user does, over and over.
public enum LoadScenario: String, CaseIterable, Sendable {
    /// A burst of guest sign-ins: sign in as a guest, sign out (which deletes the guest).
    case guestSignup = "guest-signup"
    /// A guest's life: sign in, write until the quota refuses (an expected outcome), link an email and password,
    /// write again as a member, delete the account.
    case guestJourney = "guest-journey"
    /// A guest with `documents` documents links to an existing account's email (one account per virtual user) and
    /// is merged into it.
    case merge
    /// A member writes a document and reads it back (one member per virtual user, 100 keys).
    case readWrite = "read-write"
    /// A guest refreshes its session (one guest per virtual user).
    case refresh

    /// One line for the command's help.
    public var summary: String {
        switch self {
        case .guestSignup: "guest sign-in then sign-out (deleting the guest)"
        case .guestJourney: "guest sign-in, writes until quota-exceeded, link, one more write, delete the account"
        case .merge: "a guest writes --documents documents and links to an existing account, merging"
        case .readWrite: "a member writes a document and reads it back"
        case .refresh: "a guest refreshes its session"
        }
    }

    /// The scenario named `name`, or `invalid-input` listing the names.
    public static func named(_ name: String) throws(FoyerError) -> LoadScenario {
        guard let scenario = LoadScenario(rawValue: name) else {
            let names = allCases.map(\.rawValue).joined(separator: ", ")
            throw .invalidInput("unknown scenario '\(name)': the scenarios are \(names)")
        }
        return scenario
    }
}
