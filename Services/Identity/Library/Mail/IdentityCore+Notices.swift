import Foundation
import FoyerAPI
import FoyerStorage
import SQLKit

extension IdentityCore {
    /// A notice to `recipient` after a change to the account (no link and no secret in it), stored in the outbox in
    /// the change's transaction `sql` when that is the mailer; an external mailer sends it after the commit
    /// (`sendNotice`).
    func keepNotice(
        _ sql: any SQLDatabase,
        to recipient: String,
        subject: String,
        body: String,
        now: Date
    ) async throws -> MailMessage {
        let notice = MailMessage(
            id: Identifiers.newMessageID(),
            sender: configuration.emailLink.sender,
            recipient: recipient,
            subject: subject,
            body: body
        )
        if case .outbox(let outbox) = mail {
            try await outbox.store(sql, notice, now: now)
        }
        return notice
    }

    /// The notice to the user's verified address (none without one) that a sign-in method was added or removed:
    /// `change` says which, at `now`; the owner who did not do it is told how to take the account back. Kept in the
    /// change's transaction `sql` (`keepNotice`) and sent after the commit (`sendNotice`).
    func keepCredentialsNotice(
        _ sql: any SQLDatabase,
        uid: String,
        _ change: String,
        now: Date
    ) async throws -> MailMessage? {
        guard let record = try await EmailRecords.load(sql, uid: uid), record.verified else { return nil }
        return try await keepNotice(
            sql,
            to: record.email,
            subject: configuration.emailLink.credentialsChangedSubject,
            body: """
                \(change) on \(Self.noticeTime(now)).

                If you did not do this, reset your password now ("Forgot password" in the app): the reset signs out \
                every device, including whoever made the change. Then remove the sign-in methods you do not know.
                """,
            now: now
        )
    }

    /// Sends `notice` through an external mailer once the change it tells of has committed. The change is made and
    /// the notice is a courtesy that must not undo it: a failure is logged, never thrown.
    func sendNotice(_ notice: MailMessage, uid: String, _ what: String) async {
        guard case .external(let mailer) = mail else { return }
        do {
            try await mailer.send(notice)
            statistics.mailSent()
        } catch {
            logger.error("\(what) not delivered", metadata: ["user.uid": "\(uid)", "error": "\(error)"])
        }
    }
}

extension CredentialKind {
    init(_ provider: IdentityProvider) {
        switch provider {
        case .apple: self = .apple
        case .google: self = .google
        }
    }

    /// How a notice names the sign-in method.
    var noticeName: String {
        switch self {
        case .email: "email and password"
        case .apple: "Sign in with Apple"
        case .google: "Sign in with Google"
        }
    }
}
