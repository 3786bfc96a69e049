import Foundation
import FoyerAPI
import FoyerRPC
import FoyerStorage
import SQLKit

/// Conflict tickets (`identity_conflict_tickets`): issued when a user proves a credential that belongs to
/// another account; redeemed once, by that user only, to sign in to that account without the credential.
/// `link` redeems it in the transaction that begins the merge or discard it was issued for.
struct ConflictTickets: Sendable {
    let lifetime: Duration

    /// Issues a ticket bound to (holder, account) on the transaction's connection.
    func issue(_ sql: any SQLDatabase, holder: String, account: String, now: Date) async throws -> ConflictDetails {
        let ticket = SecretToken.generate()
        let expiry = now.adding(lifetime)
        try await sql.raw(
            """
            INSERT INTO identity_conflict_tickets (ticket_hash, holder_uid, account_uid, created_at, expires_at,
                redeemed_at)
            VALUES (\(SQLBytes(ticket.hash)), \(bind: holder), \(bind: account), \(SQLTimestamp(now)),
                \(SQLTimestamp(expiry)), NULL)
            """
        ).run()
        return ConflictDetails(
            otherUID: account,
            ticket: ticket.text,
            ticketExpiresAtMilliseconds: expiry.wireMilliseconds
        )
    }

    /// Marks the ticket redeemed by `holder` and returns the account it names; `ticket-invalid` if it is unknown,
    /// expired, already redeemed, or someone else's (which leaves it untouched).
    func redeem(_ sql: any SQLDatabase, ticket: SecretToken, holder: String, now: Date) async throws -> String {
        guard
            let row = try await sql.raw(
                """
                SELECT holder_uid, account_uid, expires_at, redeemed_at FROM identity_conflict_tickets
                WHERE ticket_hash = \(SQLBytes(ticket.hash))\(unsafeRaw: sql.lockClause)
                """
            ).first(),
            try row.decode(column: "holder_uid", as: String.self) == holder,
            try row.decodeOptionalDate(column: "redeemed_at") == nil,
            now < (try row.decodeDate(column: "expires_at"))
        else { throw Self.invalid() }
        try await sql.raw(
            """
            UPDATE identity_conflict_tickets SET redeemed_at = \(SQLTimestamp(now))
            WHERE ticket_hash = \(SQLBytes(ticket.hash))
            """
        ).run()
        return try row.decode(column: "account_uid", as: String.self)
    }

    /// Deletes every ticket naming one of `accounts`, redeemed or not, so none signs in to it or authorizes a merge
    /// into it any more (`signOutEverywhere`).
    func withdraw(_ sql: any SQLDatabase, accounts: [String]) async throws {
        try await sql.raw("DELETE FROM identity_conflict_tickets WHERE account_uid IN (\(binds: accounts))").run()
    }

    static func invalid() -> IdentityError { .ticketInvalid() }
}
