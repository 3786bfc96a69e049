/// A method of a service: its id on the wire and the types of its request and response bodies.
///
/// Method ids are partitioned by service (docs/PROTOCOL.md, "Method ids"): `0x0001`–`0x00FF` are built into
/// the runtime (health, echo), `0x0100`–`0x01FF` identity, `0x0200` guest-quota, `0x0300` user-data,
/// `0x0400` cleanup, `0x0500` gateway.
public struct RPCMethod<Request: WireMessage, Response: WireMessage>: Sendable, CustomStringConvertible {
    public let id: UInt16
    public let name: String
    /// Whether the call may be sent again when its outcome is unknown. Sets the IDEMPOTENT flag.
    public let isIdempotent: Bool

    public init(id: UInt16, name: String, idempotent: Bool) {
        precondition(id != 0, "method id 0 is reserved")
        self.id = id
        self.name = name
        self.isIdempotent = idempotent
    }

    public var description: String { "\(name) (0x\(String(id, radix: 16)))" }
}

/// The methods every Foyer server answers, whatever service it hosts.
public enum BuiltinMethods {
    /// Answers the server's name and state; used for health checks.
    public static let health = RPCMethod<Empty, HealthStatus>(id: 0x0001, name: "health", idempotent: true)
    /// Answers the request body unchanged; used by tests and benchmarks.
    public static let echo = RPCMethod<RawBody, RawBody>(id: 0x0002, name: "echo", idempotent: true)
}

/// What a method is on the wire, whatever its message types: the row of a service's operation table
/// (`<Service>Methods.all`), which the router checks its handlers against and the docs are tested against.
public struct RPCMethodDescriptor: Hashable, Sendable, CustomStringConvertible {
    public let id: UInt16
    public let name: String
    public let isIdempotent: Bool

    public init(id: UInt16, name: String, isIdempotent: Bool) {
        self.id = id
        self.name = name
        self.isIdempotent = isIdempotent
    }

    public var description: String { "\(name) (0x\(String(id, radix: 16)))" }
}

extension RPCMethod {
    public var descriptor: RPCMethodDescriptor { RPCMethodDescriptor(id: id, name: name, isIdempotent: isIdempotent) }
}
