public import Foundation
public import FoyerRPC

/// A local CA, a server certificate for 127.0.0.1, ::1 and localhost, and optionally one named certificate per
/// service (each fit to serve and to be presented as client certificate), made by `scripts/make-dev-certs.sh` in a
/// temporary directory of their own, for tests that speak TLS and mutual TLS.
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

    /// The certificate (subject CN=`name`) and key made for `name` (see ``make(names:)``).
    public func certificate(named name: String) -> TLSSettings {
        TLSSettings(
            certificatePath: directory.appendingPathComponent("\(name).pem").path,
            keyPath: directory.appendingPathComponent("\(name)-key.pem").path
        )
    }

    /// Runs the script; each call makes a new, unrelated CA, with a certificate for each of `names` besides the
    /// server's.
    public static func make(names: [String] = []) throws -> DevCertificates {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "foyer-certs-\(UUID().uuidString)"
        )
        try run(directory: directory, names: names)
        return DevCertificates(directory: directory)
    }

    /// Issues new certificates (new keys, new serial numbers) for `names` and the server from the same CA, replacing
    /// the files.
    public func reissue(names: [String]) throws {
        try Self.run(directory: directory, names: names)
    }

    private static func run(directory: URL, names: [String]) throws {
        let script = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("scripts/make-dev-certs.sh")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["bash", script.path, directory.path] + names
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw DevCertificatesError(message: "\(script.path) exited with \(process.terminationStatus)")
        }
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
