public import Foundation
public import FoyerRPC

/// A local CA and a server certificate for 127.0.0.1, ::1 and localhost, made by `scripts/make-dev-certs.sh` in a
/// temporary directory of their own, for tests that speak TLS.
public struct DevCertificates: Sendable {
    /// The directory the script wrote into.
    public let directory: URL

    /// The CA's certificate, for clients to trust.
    public var caFile: String { directory.appendingPathComponent("ca.pem").path }
    /// The server's certificate chain and key, for a listener.
    public var server: TLSSettings {
        TLSSettings(
            certificatePath: directory.appendingPathComponent("server.pem").path,
            keyPath: directory.appendingPathComponent("server-key.pem").path
        )
    }
    /// The CA's private key (a key that does not match the server's certificate).
    public var caKeyFile: String { directory.appendingPathComponent("ca-key.pem").path }

    /// Runs the script; each call makes a new, unrelated CA.
    public static func make() throws -> DevCertificates {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "foyer-certs-\(UUID().uuidString)"
        )
        let script = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("scripts/make-dev-certs.sh")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["bash", script.path, directory.path]
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw DevCertificatesError(message: "\(script.path) exited with \(process.terminationStatus)")
        }
        return DevCertificates(directory: directory)
    }

    /// Deletes the directory.
    public func remove() {
        try? FileManager.default.removeItem(at: directory)
    }
}

/// The script could not make the certificates.
public struct DevCertificatesError: Error, CustomStringConvertible {
    public let message: String
    public var description: String { message }
}
