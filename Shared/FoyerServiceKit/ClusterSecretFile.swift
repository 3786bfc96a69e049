import Foundation
public import FoyerRPC
public import Logging

#if canImport(Glibc)
import Glibc
#endif

/// Reads the cluster secret from a file, creating the file with a new secret on first start.
///
/// Creation uses `O_CREAT | O_EXCL` with mode 0600, so two services starting together never write two
/// different secrets: the loser of the race reads the winner's.
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
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL, 0o600)
        guard descriptor >= 0 else {
            if errno == EEXIST, let text = try? String(contentsOfFile: path, encoding: .utf8) {
                return try ClusterSecret(text: text)
            }
            throw ServiceKitError("cannot create the cluster secret file \(path): \(String(cString: strerror(errno)))")
        }
        defer { close(descriptor) }
        let bytes = Array((secret.text + "\n").utf8)
        guard write(descriptor, bytes, bytes.count) == bytes.count, fsync(descriptor) == 0 else {
            throw ServiceKitError("cannot write the cluster secret file \(path)")
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
