import Foundation
import FoyerClient

/// Where the command's one JSON object goes: stdout on success, stderr on failure.
enum Output {
    static func success(_ value: JSONValue) {
        FileHandle.standardOutput.write(Data((value.text + "\n").utf8))
    }

    static func failure(_ value: JSONValue) {
        FileHandle.standardError.write(Data((value.text + "\n").utf8))
    }

    /// `{"error": name, "status": number, "message": ..., extras}`; `status` is 0 for an error the client found
    /// itself (`not-signed-in`, `invalid-input`, `session-storage`, `usage`).
    static func errorObject(_ error: FoyerError) -> JSONValue {
        var members: [(String, JSONValue)] = [
            ("error", .string(error.name)),
            ("status", .uint(UInt64(error.status?.rawValue ?? 0))),
            ("message", .string(error.message)),
        ]
        if let quota = error.quotaExceeded {
            members += [
                ("counter", .string(quota.counter)),
                ("limit", .uint(quota.limit)),
                ("used", .uint(quota.used)),
                ("remaining", .uint(quota.remaining)),
                ("requested", .uint(quota.requested)),
            ]
        }
        if let retryAfter = error.retryAfter {
            let (seconds, attoseconds) = retryAfter.components
            members.append(("retryAfterMs", .int(seconds * 1000 + attoseconds / 1_000_000_000_000_000)))
        }
        if let version = error.currentVersion { members.append(("currentVersion", .uint(version))) }
        if let limit = error.valueByteCountLimit { members.append(("valueLimit", .uint(limit))) }
        if error.isAuthenticationFailure { members.append(("signInAgain", .bool(true))) }
        return .object(members)
    }
}
