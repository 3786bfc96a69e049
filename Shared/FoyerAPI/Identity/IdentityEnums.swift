/// Apple or Google, the providers whose ID tokens identity accepts. Encoded as `u8`.
public enum IdentityProvider: UInt8, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    case apple = 1
    case google = 2

    public var description: String {
        switch self {
        case .apple: "apple"
        case .google: "google"
        }
    }
}

/// What an email-link token does when it is redeemed. Encoded as `u8`.
public enum EmailLinkPurpose: UInt8, Sendable, Hashable, CaseIterable {
    /// Signs in to the account with that email, creating a permanent account if there is none.
    case signIn = 1
    /// Attaches the email to the user that asked (a guest signing up).
    case link = 2
}

/// Which kind of user an access token must be for. Encoded as `u8`.
public enum TokenRequirement: UInt8, Sendable, Hashable, CaseIterable {
    case any = 0
    /// A permanent account (`is_anonymous` false); a guest's token is refused with `member-required`.
    case member = 1
    /// A guest (`is_anonymous` true); a member's token is refused with `guest-required`.
    case guest = 2
    /// A guest, or a permanent account whose session started within identity's recent-sign-in window (else
    /// `recent-sign-in-required`): the step-up before linking a credential to an account or deleting it.
    case guestOrRecentSignIn = 3
}

/// Where a user is in its life. Encoded as `u8`.
public enum AccountStateKind: UInt8, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    case active = 0
    /// Being merged into another account under an operation id; its sessions are revoked.
    case merging = 1
    /// Being deleted under an operation id; its sessions are revoked.
    case deleting = 2

    public var description: String {
        switch self {
        case .active: "active"
        case .merging: "merging"
        case .deleting: "deleting"
        }
    }
}

/// What `findUser` looks a user up by. Encoded as `u8`.
public enum UserLookup: UInt8, Sendable, Hashable, CaseIterable {
    case uid = 0
    /// An email credential's address (normalised as sign-in does), or a provider identity's email.
    case email = 1
}

/// Which users `listUsers` lists. Encoded as `u8`.
public enum UserKind: UInt8, Sendable, Hashable, CaseIterable {
    /// Anonymous users (`is_anonymous` true).
    case guests = 0
    /// Permanent accounts.
    case members = 1
    case all = 2
}

/// What `listUsers` orders by (then by uid). Encoded as `u8`.
public enum UserOrder: UInt8, Sendable, Hashable, CaseIterable {
    case createdAt = 0
    case lastActivity = 1
}
