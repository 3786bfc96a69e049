import Foundation
import FoyerCrypto
import FoyerStorage
import FoyerTestSupport
import SQLKit
import Testing

@Suite("The leftover search used by the deletion checks finds a user in any table, however it is stored")
struct LeftoverSearchTests {
    @Test(
        "A table nobody listed is searched; uid, email and subject are found inside text and bytes, digests as bytes and hex",
        arguments: TestEngine.allCases
    )
    func findsEverywhere(engine: TestEngine) async throws {
        try await withTestDatabase(engine) { database in
            let uid = testUID()
            let email = "Someone@Example.com"
            let digest = LeftoverNeedles.identityEmailDigests(email.lowercased())[0]
            let binary = database.engine.binaryColumnType
            try await database.transaction { sql in
                for statement in [
                    "CREATE TABLE added_later (id BIGINT PRIMARY KEY, note TEXT, data \(binary), amount BIGINT)",
                    "CREATE TABLE without_text (id BIGINT PRIMARY KEY)",
                ] {
                    try await sql.raw(SQLQueryString(statement)).run()
                }
                let rows: [(Int64, String?, [UInt8]?)] = [
                    (1, "{\"owner\":\"\(uid)\"}", nil),  // inside a longer text
                    (2, nil, Array("to: \(email.lowercased())".utf8)),  // as UTF-8 inside bytes
                    (3, nil, digest),  // identity's digest, as bytes
                    (4, "hash " + digest.map { String(format: "%02x", $0) }.joined(), nil),  // the digest in hex
                    (5, "apple 001234.abc.0123", nil),  // a provider subject
                    (6, "someone else", [1, 2, 3]),  // nothing of the user
                ]
                for (id, note, data) in rows {
                    try await sql.raw(
                        """
                        INSERT INTO added_later (id, note, data, amount)
                        VALUES (\(bind: id), \(bind: note), \(data.map { SQLBytes($0) } ?? SQLBytes([9])), 0)
                        """
                    ).run()
                }
            }
            let columns = try await Leftovers.searchableColumns(in: database)
            #expect(columns["added_later"]?.map(\.name).sorted() == ["data", "note"])
            #expect(columns["without_text"] == [])

            let needles = LeftoverNeedles(uid: uid, emails: [email], subjects: ["001234.abc.0123"])
            #expect(try await Leftovers.find(needles, in: database) == ["added_later": 5])
            #expect(try await Leftovers.find(LeftoverNeedles(uid: testUID()), in: database).isEmpty)
        }
    }
}
