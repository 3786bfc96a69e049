/// What a sign-in or link email carries (`EmailLinkSettings.delivery`): the link, which works only in the app that
/// asked for it (it holds the verifier), the six-digit code, which works on any device with the address, or both.
/// Password-reset and email-change emails always carry a link only.
public enum EmailLinkDelivery: String, Sendable, CaseIterable {
    case link
    case code
    case both

    /// Whether the email shows the link.
    var sendsLink: Bool { self != .code }

    /// Whether the email shows a code (and the row keeps its hash, so `completeEmailCode` can redeem it).
    var sendsCode: Bool { self != .link }
}
