internal import CFoyerLibcrypto

/// Access to libcrypto's per-thread error queue.
///
/// Every failed libcrypto call leaves entries on the calling thread's queue. FoyerCrypto drains the queue after
/// each failure so that stale entries never surface in unrelated code running later on the same thread.
enum LibcryptoErrorQueue {
    /// Upper bound for one formatted error line (libcrypto truncates to the buffer it is given).
    private static let messageCapacity = 256

    /// Drains the queue and returns the most recent entry as text, or "no libcrypto error" when it was empty.
    static func drain() -> String {
        var last: UInt = 0
        while true {
            let code = ERR_get_error()
            if code == 0 { break }
            last = code
        }
        guard last != 0 else { return "no libcrypto error" }
        let bytes = [CChar](unsafeUninitializedCapacity: messageCapacity) { buffer, initializedCount in
            buffer.initialize(repeating: 0)
            ERR_error_string_n(last, buffer.baseAddress, messageCapacity)
            initializedCount = messageCapacity
        }
        let length = bytes.firstIndex(of: 0) ?? bytes.count
        return String(decoding: bytes[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Discards any pending entries (used where a failure is an expected outcome, such as a bad signature).
    static func clear() {
        ERR_clear_error()
    }

    /// A ``FoyerCryptoError/libraryFailure`` naming the failed operation and libcrypto's own explanation.
    static func failure(_ operation: String) -> FoyerCryptoError {
        .libraryFailure("\(operation) failed (\(drain()))")
    }
}
