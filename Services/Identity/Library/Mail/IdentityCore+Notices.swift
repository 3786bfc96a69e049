import Foundation
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
