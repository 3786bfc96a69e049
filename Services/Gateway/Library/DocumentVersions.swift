import Foundation
import FoyerAPI
import FoyerCrypto
import Synchronization

/// The version of each document this replica last wrote or read, so that a put charges the quota against it
/// without asking user-data first.
///
/// Only a guess: user-data writes a put only while the document is still the version it was charged against
/// (`putOnce`'s base) and otherwise answers the version it found, which the put is then charged against. A wrong
/// or missing entry costs calls, never a wrong count; a document not seen here is taken to be new. Entries live
/// `lifetime` and at most `capacity` of them are held (keyed by 128 bits of a SHA-256 of the uid, collection and
/// key, so that a long key costs no memory).
final class DocumentVersions: Sendable {
    struct Key: Hashable {
        var high: UInt64
        var low: UInt64

        init(uid: String, collection: String, key: String) {
            let digest = SHA256.hash(Array("\(uid)\u{0}\(collection)\u{0}\(key)".utf8))
            (high, low) = (0..<8).reduce((UInt64(0), UInt64(0))) { words, index in
                ((words.0 << 8) | UInt64(digest[index]), (words.1 << 8) | UInt64(digest[index + 8]))
            }
        }
    }

    private let table: Mutex<ExpiringTable<Key, PutBase>>

    init(lifetime: TimeInterval = 300, capacity: Int = 10_000) {
        table = Mutex(ExpiringTable(lifetime: lifetime, capacity: capacity))
    }

    /// The version last seen of the document, or `absent` if it was not seen (or seen absent) lately.
    func base(of key: Key, now: Date) -> PutBase {
        table.withLock { $0.value(key, now: now) } ?? .absent
    }

    /// Notes the document's version (`absent`: it does not exist).
    func note(_ base: PutBase, of key: Key, now: Date) {
        table.withLock { table in
            if base.exists {
                table.store(base, for: key, storedAt: now, now: now)
            } else {
                table.removeValue(for: key)
            }
        }
    }

    /// Entries held, expired ones not yet dropped included (for tests).
    var count: Int { table.withLock { $0.count } }
}
