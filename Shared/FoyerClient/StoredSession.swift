public import Foundation
public import FoyerAPI

#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A session kept on disk between runs (the `foyer` command's `--session FILE`): the gateway it belongs to, the
/// user and the tokens with their expiries, and the verifier of an email link sent but not yet completed.
///
/// The file is JSON, written atomically (a new file renamed over the old one) with mode 0600, because it holds
/// a refresh token: whoever reads it can act as the user.
///
/// ```json
/// {
///   "version": 1,
///   "gateway": "127.0.0.1:7400",
///   "session": {
///     "uid": "…", "isAnonymous": true, "sessionID": "…",
///     "accessToken": "…", "accessTokenExpiresAt": 1700000900000,
///     "refreshToken": "…", "refreshTokenExpiresAt": 1702592000000
///   },
///   "pendingEmailLink": { "email": "a@example.com", "purpose": "link", "verifier": "…", "sentAt": 1700000000000 }
/// }
/// ```
/// Times are milliseconds since the Unix epoch.
public struct StoredSession: Codable, Hashable, Sendable {
    /// The format of the file; readers refuse a newer one.
    public static let currentVersion = 1

    /// The signed-in user and the session's tokens.
    public struct Tokens: Codable, Hashable, Sendable {
        public var uid: String
        public var isAnonymous: Bool
        public var sessionID: String
        public var accessToken: String
        public var accessTokenExpiresAt: UInt64
        public var refreshToken: String
        public var refreshTokenExpiresAt: UInt64

        public init(_ tokens: SessionTokens) {
            uid = tokens.uid
            isAnonymous = tokens.isAnonymous
            sessionID = tokens.sessionID
            accessToken = tokens.accessToken
            accessTokenExpiresAt = tokens.accessTokenExpiresAtMilliseconds
            refreshToken = tokens.refreshToken
            refreshTokenExpiresAt = tokens.refreshTokenExpiresAtMilliseconds
        }

        public var sessionTokens: SessionTokens {
            SessionTokens(
                uid: uid,
                isAnonymous: isAnonymous,
                sessionID: sessionID,
                accessToken: accessToken,
                accessTokenExpiresAtMilliseconds: accessTokenExpiresAt,
                refreshToken: refreshToken,
                refreshTokenExpiresAtMilliseconds: refreshTokenExpiresAt
            )
        }
    }

    /// An email link sent and not yet completed: the verifier that must come back with the link's token.
    public struct PendingEmailLink: Codable, Hashable, Sendable {
        public var email: String
        /// `sign-in` or `link`.
        public var purpose: String
        /// base64url of the verifier (`EmailLinkVerifier.text`).
        public var verifier: String
        public var sentAt: UInt64

        public init(email: String, purpose: EmailLinkPurpose, verifier: EmailLinkVerifier, sentAt: Date) {
            self.email = email
            self.purpose = purpose == .link ? "link" : "sign-in"
            self.verifier = verifier.text
            self.sentAt = sentAt.millisecondsSince1970
        }

        public var linkPurpose: EmailLinkPurpose { purpose == "link" ? .link : .signIn }

        public func emailLinkVerifier() throws(FoyerError) -> EmailLinkVerifier {
            try EmailLinkVerifier(text: verifier)
        }
    }

    public var version: Int
    /// `host:port` of the gateway the session belongs to.
    public var gateway: String?
    public var session: Tokens?
    public var pendingEmailLink: PendingEmailLink?

    public init(gateway: String? = nil, session: SessionTokens? = nil, pendingEmailLink: PendingEmailLink? = nil) {
        self.version = Self.currentVersion
        self.gateway = gateway
        self.session = session.map(Tokens.init)
        self.pendingEmailLink = pendingEmailLink
    }

    /// The session's tokens as the client uses them.
    public var sessionTokens: SessionTokens? {
        get { session?.sessionTokens }
        set { session = newValue.map(Tokens.init) }
    }
}

// MARK: - Files

extension StoredSession {
    /// Reads the session file at `path`; `nil` if there is no such file.
    ///
    /// - Throws: `FoyerError.sessionStorage` if the file cannot be read or is not a session file.
    public static func load(from path: String) throws(FoyerError) -> StoredSession? {
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch let error as CocoaError where error.code == .fileReadNoSuchFile {
            return nil
        } catch {
            guard FileManager.default.fileExists(atPath: path) else { return nil }
            throw .sessionStorage("cannot read the session file \(path): \(error.localizedDescription)")
        }
        let stored: StoredSession
        do {
            stored = try JSONDecoder().decode(StoredSession.self, from: data)
        } catch {
            throw .sessionStorage("\(path) is not a Foyer session file")
        }
        guard stored.version <= currentVersion else {
            throw .sessionStorage("\(path) was written by a newer foyer (format \(stored.version))")
        }
        return stored
    }

    /// Writes the session to `path` atomically with mode 0600: a temporary file in the same directory, written,
    /// flushed to disk and renamed over `path`, so a reader sees the old file or the new one, never a mix, and
    /// the tokens are never readable by others, not even for a moment.
    public func save(to path: String) throws(FoyerError) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        let bytes: [UInt8]
        do {
            bytes = Array(try encoder.encode(self)) + [UInt8(ascii: "\n")]
        } catch {
            throw .sessionStorage("cannot encode the session: \(error)")
        }
        try Self.writeAtomically(bytes, to: path)
    }

    /// Deletes the session file (nothing if there is none).
    public static func remove(at path: String) throws(FoyerError) {
        guard unlink(path) == 0 || errno == ENOENT else {
            throw .sessionStorage("cannot remove the session file \(path): \(String(cString: strerror(errno)))")
        }
    }

    /// Writes `bytes` to `path` atomically with mode 0600 (also the device key's file, `FileDeviceKeyStore`).
    static func writeAtomically(_ bytes: [UInt8], to path: String, what: String = "session file") throws(FoyerError) {
        let url = URL(fileURLWithPath: path)
        let directory = url.deletingLastPathComponent().path
        let temporary = directory + "/." + url.lastPathComponent + ".\(OperationID.make()).tmp"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw .sessionStorage("cannot create \(temporary): \(String(cString: strerror(errno)))")
        }
        var failure: String?
        if fchmod(descriptor, 0o600) != 0 { failure = "chmod" }
        var written = 0
        while failure == nil, written < bytes.count {
            let count = bytes[written...].withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            if count <= 0 { failure = "write" } else { written += count }
        }
        if failure == nil, fsync(descriptor) != 0 { failure = "fsync" }
        let reason = String(cString: strerror(errno))
        close(descriptor)
        if failure == nil, rename(temporary, path) != 0 { failure = "rename" }
        if let failure {
            let reason = failure == "rename" ? String(cString: strerror(errno)) : reason
            unlink(temporary)
            throw .sessionStorage("cannot write the \(what) \(path) (\(failure): \(reason))")
        }
        // Make the rename itself durable.
        let directoryDescriptor = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if directoryDescriptor >= 0 {
            fsync(directoryDescriptor)
            close(directoryDescriptor)
        }
    }
}
