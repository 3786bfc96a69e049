import Foundation
import FoyerAPI
import FoyerCrypto
import FoyerIdentity
import FoyerRPC
import FoyerStorage
import FoyerTestSupport
import FoyerWire
import SQLKit
import Testing

extension IdentityHarness {
    /// Deletes the account as the gateway's delete-everything does: `beginDelete`, then `finishDelete`.
    func deleteAccount(_ uid: String) async throws {
        let operationID = "delete-\(randomKey())"
        _ = try await call(IdentityMethods.beginDelete, BeginDeleteRequest(uid: uid, operationID: operationID))
        try await call(IdentityMethods.finishDelete, FinishDeleteRequest(uid: uid, operationID: operationID))
    }

    /// Every `table.column` of identity's schema (read from the database, so no table can be missed) with text
    /// equal to one of `values`, and how many rows.
    func columnsHolding(_ values: [String]) async throws -> [String: Int] {
        try await database.withConnection { sql in
            let columns: [(table: String, column: String)]
            switch sql.engineKind {
            case .sqlite:
                columns = try await sql.raw(
                    """
                    SELECT m.name AS table_name, p.name AS column_name FROM sqlite_master m
                    JOIN pragma_table_info(m.name) p WHERE m.type = 'table' AND upper(p.type) = 'TEXT'
                    """
                ).all().map {
                    (
                        try $0.decode(column: "table_name", as: String.self),
                        try $0.decode(column: "column_name", as: String.self)
                    )
                }
            case .postgres:
                columns = try await sql.raw(
                    """
                    SELECT table_name, column_name FROM information_schema.columns
                    WHERE table_schema = current_schema() AND data_type = 'text'
                    """
                ).all().map {
                    (
                        try $0.decode(column: "table_name", as: String.self),
                        try $0.decode(column: "column_name", as: String.self)
                    )
                }
            }
            var found: [String: Int] = [:]
            for (table, column) in columns {
                let count = try await sql.raw(
                    "SELECT COUNT(*) AS n FROM \(ident: table) WHERE \(ident: column) IN (\(binds: values))"
                ).first()!.decode(column: "n", as: Int.self)
                if count > 0 { found["\(table).\(column)"] = count }
            }
            #expect(columns.contains { $0.table == "identity_users" && $0.column == "uid" }, "the schema was read")
            return found
        }
    }
}

/// Checklist item 32: an account deleted with everything, then the same email (or the same provider subject)
/// signs up again: a new uid, and nothing of the old account comes back.
@Suite("Delete, then register again with the same email or provider identity")
struct ReRegistrationTests {
    @Test(
        "The same email signs up again after delete-everything: a new uid, the new password only, no trace of the old account",
        arguments: TestEngine.allCases
    )
    func sameEmail(engine: TestEngine) async throws {
        try await withIdentity(engine) { identity in
            let email = "returning@example.com"
            let guest = try await identity.newGuest()
            let old = try await identity.call(
                IdentityMethods.linkPassword,
                LinkPasswordRequest(uid: guest.uid, email: email, password: "the first passphrase")
            ).linked()
            // Leave traces around the address: a failed sign-in, a proven link, an open link.
            #expect(
                await identity.status(
                    IdentityMethods.signInWithPassword,
                    PasswordSignInRequest(email: email, password: "a wrong passphrase")
                ) == IdentityStatus.invalidCredentials
            )
            let proof = LinkVerifier()
            _ = try await identity.completeLink(
                try await identity.requestLink(email, verifier: proof),
                verifier: proof.verifier
            )
            _ = try await identity.requestLink(email, verifier: LinkVerifier())
            try await identity.deleteAccount(old.uid)
            #expect(try await identity.columnsHolding([old.uid, email]) == [:])

            let newcomer = try await identity.newGuest()
            let fresh = try await identity.call(
                IdentityMethods.linkPassword,
                LinkPasswordRequest(uid: newcomer.uid, email: email, password: "the second passphrase")
            ).linked()
            #expect(fresh.uid == newcomer.uid && fresh.uid != old.uid && !fresh.isAnonymous)
            let user = try await identity.call(IdentityMethods.getUser, IdentityUserRequest(uid: fresh.uid))
            #expect(user.email == email && user.hasPassword && !user.emailVerified && user.providers.isEmpty)
            #expect(
                await identity.status(
                    IdentityMethods.signInWithPassword,
                    PasswordSignInRequest(email: email, password: "the first passphrase")
                ) == IdentityStatus.invalidCredentials
            )
            let signIn = try await identity.call(
                IdentityMethods.signInWithPassword,
                PasswordSignInRequest(email: email, password: "the second passphrase")
            )
            #expect(signIn.uid == fresh.uid)
            #expect(
                await identity.status(
                    IdentityMethods.refreshSession,
                    RefreshSessionRequest(refreshToken: old.refreshToken)
                ) != nil
            )
            #expect(
                await identity.status(IdentityMethods.getUser, IdentityUserRequest(uid: old.uid))
                    == IdentityStatus.userNotFound
            )
            #expect(try await identity.columnsHolding([old.uid]) == [:])
        }
    }

    @Test(
        "The same Google subject signs up again after delete-everything with a new token, never with the old one",
        arguments: TestEngine.allCases
    )
    func sameProviderSubject(engine: TestEngine) async throws {
        let google = try await TestIdentityProvider.generate([("google-1", "ES256")])
        let endpoint = JWKSEndpoint(google.jwksJSON)
        try await withProviders(engine, apple: endpoint, google: endpoint) { identity, _ in
            let tokens = try await google.sign(
                [
                    identity.googleClaims(sub: "g-returning", email: "returning@gmail.com", verified: true, jti: "1"),
                    identity.googleClaims(sub: "g-returning", email: "returning@gmail.com", verified: true, jti: "2"),
                ],
                kid: "google-1"
            )
            let old = try await identity.providerSignIn(.google, tokens[0])
            try await identity.deleteAccount(old.uid)
            #expect(try await identity.columnsHolding([old.uid, "g-returning", "returning@gmail.com"]) == [:])
            // The token already used stays used, though its account is gone: it cannot sign up again.
            #expect(
                await status { try await identity.providerSignIn(.google, tokens[0]) }
                    == IdentityStatus.nonceAlreadyUsed
            )

            let fresh = try await identity.providerSignIn(.google, tokens[1])
            #expect(fresh.uid != old.uid && !fresh.isAnonymous)
            let user = try await identity.call(IdentityMethods.getUser, IdentityUserRequest(uid: fresh.uid))
            #expect(user.providers.map(\.subject) == ["g-returning"] && user.email == nil)
            #expect(try await identity.columnsHolding([old.uid]) == [:])
        }
    }
}
