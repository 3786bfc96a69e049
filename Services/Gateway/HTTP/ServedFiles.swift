import Foundation
import NIOCore

/// The files the HTTP listener serves as they are (the OpenAPI document, the web example), read once when the
/// listener is set up; a file not configured or not readable is nil, and its path answers 404.
struct ServedFiles: Sendable {
    let openAPIDocument: ByteBuffer?
    let examplePage: ByteBuffer?

    init(_ configuration: GatewayHTTPConfiguration) {
        openAPIDocument = Self.read(configuration.openAPIPath)
        examplePage = Self.read(configuration.examplePagePath)
    }

    private static func read(_ path: String?) -> ByteBuffer? {
        guard let path, let contents = FileManager.default.contents(atPath: path) else { return nil }
        return ByteBuffer(bytes: contents)
    }
}
