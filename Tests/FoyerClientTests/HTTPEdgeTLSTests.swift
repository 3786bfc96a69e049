import Foundation
import FoyerJSON
import FoyerTestSupport
import Testing

@testable import FoyerGatewayHTTP

/// The HTTP listener with a certificate (`GatewayHTTPConfiguration.tls`): HTTPS only, HTTP/2 or HTTP/1.1 as ALPN
/// agrees, driven by curl (a client that is not Foyer's and speaks both, trusting the test's own CA).
@Suite("The HTTP edge over TLS, HTTP/1.1 and HTTP/2", .enabled(if: Curl.supportsHTTP2, "needs curl with HTTP/2"))
struct HTTPEdgeTLSTests {
    @Test("A guest signs in, puts and gets a document; the JWKS answers", arguments: ["1.1", "2"])
    func guestOverHTTPS(version: String) async throws {
        try await withTLSEdge { edge, curl in
            let guest = try await curl.send(
                version,
                "POST",
                edge + "/v1/guests",
                headers: ["Idempotency-Key": guestKey()]
            )
            #expect(guest.version == version)
            #expect(guest.status == 201)
            #expect(guest.json?["isAnonymous"]?.bool == true)
            let token = try #require(guest.json?["accessToken"]?.string)

            let put = try await curl.send(
                version,
                "PUT",
                edge + "/v1/documents/notes/first",
                headers: ["Authorization": "Bearer \(token)", "Idempotency-Key": UUID().uuidString],
                json: ["value": ["text": "over HTTPS"]]
            )
            #expect(put.status == 200)
            #expect(put.json?["version"]?.int == 1)
            let get = try await curl.send(
                version,
                "GET",
                edge + "/v1/documents/notes/first",
                headers: ["Authorization": "Bearer \(token)"]
            )
            #expect(get.status == 200)
            #expect(get.json?["value"] == ["text": "over HTTPS"])

            let jwks = try await curl.send(version, "GET", edge + "/.well-known/jwks.json")
            #expect(jwks.status == 200)
            #expect(jwks.json?["keys"]?.array?.isEmpty == false)
            let discovery = try await curl.send(version, "GET", edge + "/.well-known/openid-configuration")
            #expect(discovery.json?["jwks_uri"]?.string == edge + "/.well-known/jwks.json")
            // The client's Host (or :authority) does not choose where verifiers fetch the keys.
            let spoofed = try await curl.send(
                version,
                "GET",
                edge + "/.well-known/openid-configuration",
                headers: ["Host": "keys.attacker.example"]
            )
            #expect(spoofed.json?["jwks_uri"]?.string == edge + "/.well-known/jwks.json")
        }
    }

    @Test("A plaintext HTTP request to the TLS listener gets no answer")
    func plaintextRefused() async throws {
        try await withTLSEdge { edge, curl in
            let plain = try await curl.run([
                "--http1.1", edge.replacingOccurrences(of: "https://", with: "http://") + "/healthz",
            ])
            #expect(plain.status != 0)
            #expect(plain.stdout.isEmpty)
        }
    }

    @Test("HTTP/2 streams on one connection count once against the per-source connection cap")
    func streamsAreOneConnection() async throws {
        try await withTLSEdge(adjust: { $0.connectionsPerSourceMax = 1 }) { edge, curl in
            let urls = (0..<6).map { _ in edge + "/healthz" }
            let run = try await curl.run(
                [
                    "--http2", "--parallel", "--parallel-max", "6", "-w",
                    "%{http_code} %{http_version} %{num_connects}\\n",
                ]
                    + urls.flatMap { ["-o", "/dev/null", $0] }
            )
            #expect(run.status == 0, "\(run.stderr)")
            let lines = run.stdout.split(separator: "\n").map { $0.split(separator: " ").map(String.init) }
            #expect(lines.count == 6)
            #expect(lines.allSatisfy { $0.count == 3 && $0[0] == "200" && $0[1] == "2" })
            #expect(lines.map { Int($0.last ?? "") ?? -1 }.reduce(0, +) == 1)
        }
    }

    @Test("A connection that never starts its TLS handshake is closed after the idle timeout")
    func silentHandshakeClosed() async throws {
        try await withTLSEdge(adjust: { $0.idleTimeoutSeconds = 1 }) { edge, _ in
            let port = try #require(Int(edge.split(separator: ":").last ?? ""))
            let silent = try await RawHTTPConnection.connect(port: port, from: "127.0.0.1")
            #expect(try await silent.readUntilClosed() == "")
        }
    }

    @Test("A silent HTTPS connection is closed after the first-request timeout, before the idle one")
    func silentConnectionClosedEarly() async throws {
        try await withTLSEdge(adjust: {
            $0.firstRequestTimeoutSeconds = 1
            $0.idleTimeoutSeconds = 60
        }) { edge, _ in
            let started = ContinuousClock.now
            let port = try #require(Int(edge.split(separator: ":").last ?? ""))
            let silent = try await RawHTTPConnection.connect(port: port, from: "127.0.0.1")
            #expect(try await silent.readUntilClosed() == "")
            #expect(ContinuousClock.now - started < .seconds(30))
        }
    }

    /// Runs `body` with the HTTP edge on HTTPS (the dev certificates) and a curl trusting their CA.
    private func withTLSEdge(
        adjust: @escaping @Sendable (inout GatewayHTTPConfiguration) -> Void = { _ in },
        _ body: (String, Curl) async throws -> Void
    ) async throws {
        let certificates = try DevCertificates.make()
        defer { certificates.remove() }
        try await withHTTPEdge {
            $0.tls = certificates.server
            adjust(&$0)
        } _: { edge in
            try await body(
                edge.baseURL.replacingOccurrences(of: "http://", with: "https://"),
                Curl(caFile: certificates.caFile)
            )
        }
    }
}

/// curl as a subprocess, waited for without blocking a thread of the cooperative pool (the in-process stack needs
/// them).
struct Curl: Sendable {
    let caFile: String

    struct Result: Sendable {
        let status: Int32
        let stdout: String
        let stderr: String
    }

    /// One HTTP answer: status, the HTTP version curl used ("1.1", "2") and the body as JSON.
    struct Answer: Sendable {
        let status: Int
        let version: String
        let json: JSONValue?
    }

    /// Whether `curl` is installed and built with HTTP/2.
    static let supportsHTTP2: Bool = {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["curl", "--version"]
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return false }
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return process.terminationStatus == 0 && output.contains("HTTP2")
    }()

    /// Sends one request with `--http1.1` or `--http2` (`version` "1.1" or "2").
    func send(
        _ version: String,
        _ method: String,
        _ url: String,
        headers: [String: String] = [:],
        json: JSONValue? = nil
    ) async throws -> Answer {
        var arguments = [
            version == "2" ? "--http2" : "--http1.1", "-X", method, "-w", "\n%{http_code} %{http_version}",
        ]
        for (name, value) in headers.sorted(by: { $0.key < $1.key }) { arguments += ["-H", "\(name): \(value)"] }
        if let json {
            arguments += [
                "-H", "Content-Type: application/json", "--data-binary", String(decoding: json.bytes, as: UTF8.self),
            ]
        }
        let result = try await run(arguments + [url])
        guard result.status == 0, let split = result.stdout.lastIndex(of: "\n") else {
            throw CurlFailure(description: "curl \(method) \(url) exited \(result.status): \(result.stderr)")
        }
        let trailer = result.stdout[result.stdout.index(after: split)...].split(separator: " ")
        return Answer(
            status: Int(trailer.first ?? "") ?? 0,
            version: String(trailer.last ?? ""),
            json: JSONValue.parse(Array(result.stdout[..<split].utf8))
        )
    }

    /// Runs `curl -sS --cacert <CA> arguments…`.
    func run(_ arguments: [String]) async throws -> Result {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("foyer-curl-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let outURL = scratch.appendingPathComponent("stdout")
        let errURL = scratch.appendingPathComponent("stderr")
        _ = FileManager.default.createFile(atPath: outURL.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errURL.path, contents: nil)
        let out = try FileHandle(forWritingTo: outURL)
        let err = try FileHandle(forWritingTo: errURL)
        defer {
            try? out.close()
            try? err.close()
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["curl", "-sS", "--max-time", "60", "--cacert", caFile] + arguments
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        let status: Int32 = try await withCheckedThrowingContinuation { continuation in
            process.terminationHandler = { continuation.resume(returning: $0.terminationStatus) }
            do {
                try process.run()
            } catch {
                process.terminationHandler = nil
                continuation.resume(throwing: error)
            }
        }
        return Result(
            status: status,
            stdout: (try? String(contentsOf: outURL, encoding: .utf8)) ?? "",
            stderr: (try? String(contentsOf: errURL, encoding: .utf8)) ?? ""
        )
    }
}

struct CurlFailure: Error, CustomStringConvertible {
    let description: String
}
