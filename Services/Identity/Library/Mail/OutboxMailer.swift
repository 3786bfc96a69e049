import Foundation
import FoyerAPI
import FoyerStorage
import SQLKit

/// The local-mode mailer: messages go into `identity_outbox`, newest kept up to a capacity, and are read back
/// with `listOutbox` (the command line shows them). The outbox holds live sign-in links: use it only where the
/// database and the cluster secret are as private as the mailbox would be.
struct OutboxMailer: Sendable {
    let capacity: Int

    /// Writes the message on the transaction's connection and drops the oldest beyond the capacity.
    func store(_ sql: any SQLDatabase, _ message: MailMessage, now: Date) async throws {
        try await sql.raw(
            """
            INSERT INTO identity_outbox (id, recipient, subject, body, created_at)
            VALUES (\(bind: message.id), \(bind: message.recipient), \(bind: message.subject), \(bind: message.body),
                    \(SQLTimestamp(now)))
            """
        ).run()
        try await sql.raw(
            """
            DELETE FROM identity_outbox WHERE created_at < (
                SELECT created_at FROM identity_outbox ORDER BY created_at DESC LIMIT 1 OFFSET \(bind: max(0, capacity - 1))
            )
            """
        ).run()
    }

    /// The newest messages first, optionally only those to one address.
    func list(_ sql: any SQLDatabase, recipient: String?, limit: Int) async throws -> [OutboxMessage] {
        let filter: SQLQueryString = recipient.map { "WHERE recipient = \(bind: $0)" } ?? ""
        return try await sql.raw(
            """
            SELECT id, recipient, subject, body, created_at FROM identity_outbox \(filter)
            ORDER BY created_at DESC, id LIMIT \(bind: limit)
            """
        ).all().map { row in
            OutboxMessage(
                id: try row.decode(column: "id", as: String.self),
                recipient: try row.decode(column: "recipient", as: String.self),
                subject: try row.decode(column: "subject", as: String.self),
                body: try row.decode(column: "body", as: String.self),
                createdAtMilliseconds: try row.decodeDate(column: "created_at").wireMilliseconds
            )
        }
    }
}
