import FoyerWire
import NIOConcurrencyHelpers
public import NIOCore

#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// An IPv4 or IPv6 network in CIDR notation (`10.0.0.0/8`, `2001:db8::/32`); a bare address is a network of one.
public struct IPNetwork: Sendable, Hashable, CustomStringConvertible {
    /// The network's address bytes (4 or 16), host bits cleared.
    let bytes: [UInt8]
    let prefixLength: Int

    /// Parses `text`; `nil` for anything but an address with an optional prefix length within the address size.
    public init?(_ text: String) {
        let parts = text.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        guard let address = IPNetwork.addressBytes(String(parts[0])) else { return nil }
        let bits = address.count * 8
        var prefixLength = bits
        if parts.count == 2 {
            guard let length = Int(parts[1]), (0...bits).contains(length) else { return nil }
            prefixLength = length
        }
        self.bytes = IPNetwork.masked(address, prefixLength: prefixLength)
        self.prefixLength = prefixLength
    }

    /// The network of `prefixLength` bits around `bytes` (4 or 16 of them).
    init(bytes: [UInt8], prefixLength: Int) {
        self.bytes = IPNetwork.masked(bytes, prefixLength: prefixLength)
        self.prefixLength = prefixLength
    }

    /// Whether `address` lies in the network. An IPv4-mapped IPv6 address (`::ffff:192.0.2.1`) counts as IPv4.
    public func contains(_ address: SocketAddress) -> Bool {
        guard let text = address.ipAddress, let candidate = IPNetwork.addressBytes(text) else { return false }
        return candidate.count == bytes.count && IPNetwork.masked(candidate, prefixLength: prefixLength) == bytes
    }

    public var description: String {
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        let family = bytes.count == 4 ? AF_INET : AF_INET6
        _ = bytes.withUnsafeBytes { inet_ntop(family, $0.baseAddress, &buffer, socklen_t(buffer.count)) }
        let length = buffer.firstIndex(of: 0) ?? buffer.count
        let address = String(decoding: buffer[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return "\(address)/\(prefixLength)"
    }

    /// The 4 or 16 bytes of an address in text; IPv4-mapped IPv6 addresses become their 4 IPv4 bytes.
    static func addressBytes(_ text: String) -> [UInt8]? {
        guard !text.isEmpty, text.utf8.count <= 64, !text.utf8.contains(0) else { return nil }
        var v4 = [UInt8](repeating: 0, count: 4)
        if v4.withUnsafeMutableBytes({ inet_pton(AF_INET, text, $0.baseAddress) }) == 1 { return v4 }
        var v6 = [UInt8](repeating: 0, count: 16)
        guard v6.withUnsafeMutableBytes({ inet_pton(AF_INET6, text, $0.baseAddress) }) == 1 else { return nil }
        if v6[0..<10].allSatisfy({ $0 == 0 }) && v6[10] == 0xFF && v6[11] == 0xFF { return Array(v6[12..<16]) }
        return v6
    }

    private static func masked(_ address: [UInt8], prefixLength: Int) -> [UInt8] {
        address.enumerated().map { index, byte in
            let bitsInByte = min(8, max(0, prefixLength - index * 8))
            return bitsInByte == 8 ? byte : byte & ~(UInt8(0xFF) >> bitsInByte)
        }
    }
}

/// The proxies (load balancers) whose connections start with a PROXY protocol header naming the client.
///
/// A server with trusted proxies requires the header (version 1 or 2) on every connection from them and takes the
/// client's address from it; connections from any other address are served as they are, and a PROXY header from
/// them is a protocol violation like any other bad preface. Never trust a header from an address you do not run.
public struct TrustedProxies: Sendable, Hashable {
    public var networks: [IPNetwork]

    public init(_ networks: [IPNetwork] = []) {
        self.networks = networks
    }

    /// Parses a comma-separated list of networks (`10.0.0.0/8, 192.0.2.7`).
    public init(parsing list: String) throws {
        var networks: [IPNetwork] = []
        for item in list.split(separator: ",") {
            let text = String(item.filter { $0 != " " && $0 != "\t" })
            guard !text.isEmpty else { continue }
            guard let network = IPNetwork(text) else {
                throw RPCError(.invalidArgument, "'\(text)' is not an IP address or network (CIDR)")
            }
            networks.append(network)
        }
        self.networks = networks
    }

    public var isEmpty: Bool { networks.isEmpty }

    public func contains(_ address: SocketAddress?) -> Bool {
        guard let address else { return false }
        return networks.contains { $0.contains(address) }
    }
}

/// The client address a PROXY header named for one connection, filled in before the connection's first frame.
final class ProxiedSource: Sendable {
    private let box = NIOLockedValueBox<SocketAddress?>(nil)

    var address: SocketAddress? { box.withLockedValue { $0 } }

    func set(_ address: SocketAddress?) { box.withLockedValue { $0 = address } }
}

/// What a PROXY protocol header says.
public enum ProxyHeader: Equatable, Sendable {
    /// The proxy relays a client at this address.
    case client(SocketAddress)
    /// The proxy's own connection (a v2 `LOCAL` health check) or an unknown protocol (`UNKNOWN`, v2 `UNSPEC`):
    /// the socket's address stands.
    case unknown

    /// The longest header accepted: v1 is at most 107 bytes; v2 is 16 bytes and a body, here at most 512 bytes
    /// (addresses and a few TLVs; proxies sending more are not supported).
    static let v2BodyByteCountMax = 512
    static let v1ByteCountMax = 107
    static let v2Signature: [UInt8] = [0x0D, 0x0A, 0x0D, 0x0A, 0x00, 0x0D, 0x0A, 0x51, 0x55, 0x49, 0x54, 0x0A]

    struct Invalid: Error, CustomStringConvertible {
        let description: String
    }

    /// Whether `bytes` may be the start of a header: they begin with the v2 signature or `PROXY ` (or with a part
    /// of either, when fewer bytes have arrived). A listener where the header is optional reads a header only then.
    public static func mayStart(_ bytes: ByteBufferView) -> Bool {
        let v1Prefix = Array("PROXY ".utf8)
        return bytes.prefix(v2Signature.count).elementsEqual(v2Signature.prefix(min(bytes.count, v2Signature.count)))
            || bytes.prefix(v1Prefix.count).elementsEqual(v1Prefix.prefix(min(bytes.count, v1Prefix.count)))
    }

    /// Reads one header from the front of `buffer`, consuming it; `nil` (and nothing consumed) if more bytes are
    /// needed. Throws on anything that is not a well-formed v1 or v2 header.
    public static func parse(_ buffer: inout ByteBuffer) throws -> ProxyHeader? {
        let available = buffer.readableBytesView
        let signatureLength = min(available.count, v2Signature.count)
        if available.prefix(signatureLength).elementsEqual(v2Signature.prefix(signatureLength)) {
            return try parseV2(&buffer)
        }
        let v1Prefix = Array("PROXY ".utf8)
        let prefixLength = min(available.count, v1Prefix.count)
        guard available.prefix(prefixLength).elementsEqual(v1Prefix.prefix(prefixLength)) else {
            throw Invalid(description: "the connection does not start with a PROXY protocol header")
        }
        return try parseV1(&buffer)
    }

    private static func parseV1(_ buffer: inout ByteBuffer) throws -> ProxyHeader? {
        let view = buffer.readableBytesView
        guard let lineFeed = view.prefix(v1ByteCountMax).firstIndex(of: 0x0A) else {
            if view.count >= v1ByteCountMax { throw Invalid(description: "PROXY v1 header longer than 107 bytes") }
            return nil
        }
        let length = lineFeed - view.startIndex + 1
        guard length >= 2, view[lineFeed - 1] == 0x0D, let line = buffer.readString(length: length) else {
            throw Invalid(description: "PROXY v1 header not ended by CRLF")
        }
        // On the UTF-8 view: as Characters, "\r\n" is one.
        let fields = String(decoding: line.utf8.dropLast(2), as: UTF8.self).split(
            separator: " ",
            omittingEmptySubsequences: false
        ).map(String.init)
        guard fields.count >= 2, fields[0] == "PROXY" else { throw Invalid(description: "malformed PROXY v1 header") }
        switch fields[1] {
        case "UNKNOWN":
            return .unknown
        case "TCP4", "TCP6":
            guard fields.count == 6, let port = Int(fields[4]), (0...65535).contains(port),
                let dstPort = Int(fields[5]), (0...65535).contains(dstPort),
                let source = IPNetwork.addressBytes(fields[2]), source.count == (fields[1] == "TCP4" ? 4 : 16),
                IPNetwork.addressBytes(fields[3]) != nil
            else { throw Invalid(description: "malformed PROXY v1 \(fields[1]) header") }
            return .client(try address(source, port: port))
        default:
            throw Invalid(description: "unsupported PROXY v1 protocol '\(fields[1])'")
        }
    }

    private static func parseV2(_ buffer: inout ByteBuffer) throws -> ProxyHeader? {
        guard buffer.readableBytes >= 16,
            let versionCommand = buffer.getInteger(at: buffer.readerIndex + 12, as: UInt8.self),
            let family = buffer.getInteger(at: buffer.readerIndex + 13, as: UInt8.self),
            let length = buffer.getInteger(at: buffer.readerIndex + 14, as: UInt16.self)
        else { return nil }
        guard versionCommand >> 4 == 2 else {
            throw Invalid(description: "PROXY v2 header with version \(versionCommand >> 4)")
        }
        guard Int(length) <= v2BodyByteCountMax else {
            throw Invalid(description: "PROXY v2 header body of \(length) bytes")
        }
        guard buffer.readableBytes >= 16 + Int(length) else { return nil }
        buffer.moveReaderIndex(forwardBy: 16)
        guard var body = buffer.readSlice(length: Int(length)) else { return nil }
        switch versionCommand & 0x0F {
        case 0x0: return .unknown  // LOCAL: the proxy's own connection
        case 0x1: break  // PROXY
        default: throw Invalid(description: "PROXY v2 header with command \(versionCommand & 0x0F)")
        }
        let addressByteCount: Int
        switch family >> 4 {
        case 0x0: return .unknown  // AF_UNSPEC
        case 0x1: addressByteCount = 4
        case 0x2: addressByteCount = 16
        default: return .unknown  // AF_UNIX: no IP address to count
        }
        guard family & 0x0F == 0x1 || family & 0x0F == 0x2 else {
            throw Invalid(description: "PROXY v2 header with transport \(family & 0x0F)")
        }
        guard let source = body.readBytes(length: addressByteCount),
            body.readBytes(length: addressByteCount) != nil,
            let port = body.readInteger(as: UInt16.self),
            body.readInteger(as: UInt16.self) != nil
        else { throw Invalid(description: "PROXY v2 header too short for its addresses") }
        return .client(try address(source, port: Int(port)))
    }

    private static func address(_ bytes: [UInt8], port: Int) throws -> SocketAddress {
        try SocketAddress(packedIPAddress: ByteBuffer(bytes: bytes), port: port)
    }
}

/// The first handler on a connection from a trusted proxy: reads the PROXY header, records the client's address,
/// passes the bytes after it on, and leaves the pipeline. A malformed or missing header closes the connection; a
/// client whose source is at its connection limit (`admitClient` says no) gets GOAWAY `too-many-connections`.
final class ProxyHeaderHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private let source: ProxiedSource
    private let admitClient: (SocketAddress) -> Bool
    private var pending: ByteBuffer?
    private var done = false
    /// Refused for the connection limit: what else arrives is dropped until the close.
    private var refused = false

    /// - Parameter admitClient: counts the connection against the client the header names; `false` refuses it.
    init(source: ProxiedSource, admitClient: @escaping (SocketAddress) -> Bool = { _ in true }) {
        self.source = source
        self.admitClient = admitClient
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !refused else { return }
        guard !done else {
            context.fireChannelRead(data)
            return
        }
        var bytes = unwrapInboundIn(data)
        if var pending = self.pending {
            pending.writeBuffer(&bytes)
            bytes = pending
        }
        do {
            guard let header = try ProxyHeader.parse(&bytes) else {
                pending = bytes
                return
            }
            done = true
            pending = nil
            if case .client(let address) = header {
                guard admitClient(address) else { return refuse(context: context) }
                source.set(address)
            }
            if bytes.readableBytes > 0 { context.fireChannelRead(wrapInboundOut(bytes)) }
            context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
        } catch {
            done = true
            pending = nil
            context.fireErrorCaught(error)
            context.close(promise: nil)
        }
    }

    /// GOAWAY `too-many-connections`, then close; nothing after the header is read.
    private func refuse(context: ChannelHandlerContext) {
        refused = true
        var bytes = context.channel.allocator.buffer(capacity: 64)
        let body = GoAwayBody(message: "too many connections from your address").encoded()
        Frame.goAway(reason: .tooManyConnections, body: body).encode(into: &bytes)
        let channel = context.channel
        context.writeAndFlush(wrapOutboundOut(bytes)).whenComplete { _ in channel.close(promise: nil) }
    }
}
