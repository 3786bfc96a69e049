import Foundation
public import FoyerRPC
public import Logging

#if canImport(Glibc)
import Glibc
#endif

/// Reads the cluster secret from a file, creating the file with a new secret on first start.
///
/// The new secret is written (mode 0600) and flushed to a file of its own (a random name), then hard-linked to `path`.
/// The link either appears whole or fails because `path` exists, so when services start together exactly one
/// secret wins, and a loser never reads a file the winner has created but not yet written.
public enum ClusterSecretFile {
    public static func loadOrCreate(path: String, logger: Logger) throws -> ClusterSecret {
        if let text = try? String(contentsOfFile: path, encoding: .utf8) {
            return try ClusterSecret(text: text)
        }
        let directory = (path as NSString).deletingLastPathComponent
        if !directory.isEmpty {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        }
        let secret = ClusterSecret.generate()
        let temporary = "\(path).\(UUID().uuidString).new"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        guard descriptor >= 0 else {
            throw ServiceKitError(
                "cannot create the cluster secret file \(temporary): \(String(cString: strerror(errno)))"
            )
        }
        defer { unlink(temporary) }
        let bytes = Array((secret.text + "\n").utf8)
        let written = write(descriptor, bytes, bytes.count) == bytes.count && fsync(descriptor) == 0
        close(descriptor)
        guard written else { throw ServiceKitError("cannot write the cluster secret file \(temporary)") }
        guard link(temporary, path) == 0 else {
            if errno == EEXIST, let text = try? String(contentsOfFile: path, encoding: .utf8) {
                return try ClusterSecret(text: text)
            }
            throw ServiceKitError("cannot create the cluster secret file \(path): \(String(cString: strerror(errno)))")
        }
        logger.notice("created a new cluster secret", metadata: ["secret.file": "\(path)"])
        return secret
    }
}

/// A start-up problem worth a clear message and a non-zero exit.
public struct ServiceKitError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
