import FoyerAPI

/// What a row of `identity_email_links` is for (its `purpose` column). Sign-in and link tokens are the passwordless
/// email links of the contract (`EmailLinkPurpose`); a password-reset token is redeemed only by
/// `completePasswordReset`, an email-change token only by `completeEmailChange`, and no method redeems a token of another kind: each kind's redemption refuses the
/// others' tokens as unknown. All kinds count against the same limits on sending (`checkEmailLinkLimits`).
enum EmailLinkKind: Sendable, Hashable {
    case signIn
    case link
    case passwordReset
    case emailChange

    init(_ purpose: EmailLinkPurpose) {
        switch purpose {
        case .signIn: self = .signIn
        case .link: self = .link
        }
    }

    /// The email-link purpose of a sign-in or link token; nil for the other kinds.
    var emailLinkPurpose: EmailLinkPurpose? {
        switch self {
        case .signIn: .signIn
        case .link: .link
        case .passwordReset, .emailChange: nil
        }
    }

    /// The `purpose` column's text.
    var text: String {
        switch self {
        case .signIn: "sign-in"
        case .link: "link"
        case .passwordReset: "password-reset"
        case .emailChange: "email-change"
        }
    }

    init?(text: String) {
        switch text {
        case "sign-in": self = .signIn
        case "link": self = .link
        case "password-reset": self = .passwordReset
        case "email-change": self = .emailChange
        default: return nil
        }
    }
}
